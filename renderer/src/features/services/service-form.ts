import {
  HEALTH_CHECK_DEFAULTS,
  HealthCheck,
  SERVICE_NAME_MAX,
  ServiceName,
  type DeployRequest,
  type ServiceCreate,
} from '../../../../shared/schemas/services';
import { pairsRule, pairsToMap, type Pair } from '../../kit/pairs';
import { numberError, portError } from '../../kit/validators';

export const SERVICE_NAME = new RegExp(ServiceName.pattern!);
const HEALTH_PATH = new RegExp(HealthCheck.properties.path.pattern!);
export const NAME_RULE = `Use 1–${SERVICE_NAME_MAX} lower-case letters, digits and hyphens, starting and ending with a letter or digit (its boxes are NAME-blue and NAME-green).`;

/**
 * The URL a service gets, as its card will show it: the preview proxy's port included (from
 * GET /v1/system; "PORT" until that answers), NAME until a name is typed.
 */
export function serviceUrl(name: string, project: string, proxyPort: number | undefined): string {
  return `http://${name || 'NAME'}--${project}.localhost:${proxyPort ?? 'PORT'}`;
}

export interface ServiceValues {
  name: string;
  base: string | null;
  command: string;
  port: number | string;
  environment: Pair[];
  health_path: string;
  interval_s: number | string;
  timeout_s: number | string;
  healthy_threshold: number | string;
  auth: 'public' | 'token';
}

export const EMPTY_SERVICE: ServiceValues = {
  name: '',
  base: null,
  command: '',
  port: '',
  environment: [],
  health_path: HEALTH_CHECK_DEFAULTS.path,
  interval_s: HEALTH_CHECK_DEFAULTS.interval_s,
  timeout_s: HEALTH_CHECK_DEFAULTS.timeout_s,
  healthy_threshold: HEALTH_CHECK_DEFAULTS.healthy_threshold,
  auth: 'token',
};

export type ServiceField = keyof ServiceValues;

/** The form field a problem's `errors[].path` concerns (`health_check.interval_s` → interval_s). */
export function serviceFieldOf(p: string): ServiceField | null {
  if (p === 'name' || p === 'base' || p === 'port' || p === 'auth') return p;
  if (p.startsWith('command')) return 'command';
  if (p.startsWith('environment')) return 'environment';
  if (p === 'health_check.path') return 'health_path';
  if (p === 'health_check.interval_s' || p === 'health_check.timeout_s' || p === 'health_check.healthy_threshold')
    return p.slice('health_check.'.length) as ServiceField;
  return null;
}

export function nameError(v: string): string | null {
  if (v === '') return 'A name is needed';
  return SERVICE_NAME.test(v) && v.length <= SERVICE_NAME_MAX ? null : NAME_RULE;
}

/** The schema's rules for the create form, as you type. */
export const serviceRules = {
  name: nameError,
  port: (v: number | string) => portError(v, 'The port your command serves HTTP on is needed'),
  environment: pairsRule('environment'),
  health_path: (v: string) => healthPathError(v),
  interval_s: (v: number | string) => numberError(v, { what: 'The interval', min: 0.1, max: 3600, decimals: true }),
  timeout_s: (v: number | string) => numberError(v, { what: 'The timeout', min: 0.1, max: 600, decimals: true }),
  healthy_threshold: (v: number | string) => numberError(v, { what: 'The threshold', min: 1, max: 100 }),
};

export function healthPathError(v: string): string | null {
  return HEALTH_PATH.test(v) ? null : 'A path starting with /, without spaces';
}

/** A command typed in one line runs through sh -c, as `box service create --command` does. */
export function commandOf(text: string): string[] | undefined {
  return text.trim() === '' ? undefined : ['sh', '-c', text];
}

/** The text a command shows in the form: the script of sh -c, else its words. */
export function commandText(command: string[] | null): string {
  if (!command) return '';
  if (command.length === 3 && command[0] === 'sh' && command[1] === '-c') return command[2]!;
  return command.join(' ');
}

/** The body of POST /services from the form; defaults are left to the core. */
export function createBody(v: ServiceValues): ServiceCreate {
  const body: ServiceCreate = { name: v.name, port: Number(v.port), auth: v.auth };
  if (v.base) body.base = v.base;
  const command = commandOf(v.command);
  if (command) body.command = command;
  const env = pairsToMap(v.environment);
  if (Object.keys(env).length) body.environment = env;
  const health: NonNullable<ServiceCreate['health_check']> = {};
  if (v.health_path !== HEALTH_CHECK_DEFAULTS.path) health.path = v.health_path;
  if (v.interval_s !== '' && Number(v.interval_s) !== HEALTH_CHECK_DEFAULTS.interval_s)
    health.interval_s = Number(v.interval_s);
  if (v.timeout_s !== '' && Number(v.timeout_s) !== HEALTH_CHECK_DEFAULTS.timeout_s)
    health.timeout_s = Number(v.timeout_s);
  if (v.healthy_threshold !== '' && Number(v.healthy_threshold) !== HEALTH_CHECK_DEFAULTS.healthy_threshold)
    health.healthy_threshold = Number(v.healthy_threshold);
  if (Object.keys(health).length) body.health_check = health;
  return body;
}

/** The body of a deploy: only what changes (environment merges over the service's on the core). */
export function deployBody(
  v: { base: string | null; command: string; environment: Pair[] },
  current: { base: string; command: string[] | null },
): DeployRequest {
  const body: DeployRequest = {};
  if (v.base && v.base !== current.base) body.base = v.base;
  const command = commandOf(v.command);
  if (command && v.command !== commandText(current.command)) body.command = command;
  const env = pairsToMap(v.environment);
  if (Object.keys(env).length) body.environment = env;
  return body;
}
