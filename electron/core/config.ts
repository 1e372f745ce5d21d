import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CORE_FLAGS, type CoreFlag } from '../../shared/core-flags';
import { isImageReference } from '../../shared/schemas/common';
import { STORAGE_DRIVERS, type StorageDriverName } from './storage/storage-driver';

export interface CoreConfig {
  host: string;
  port: number;
  proxyPort: number;
  /** --egress-hosts: a hosts-format file the egress proxy reads before DNS; null: DNS alone. */
  egressHosts: string | null;
  /** The egress proxy's port at each project network's gateway. */
  egressPort: number;
  dataDir: string;
  defaultBase: string;
  /** Whether --default-base (or BOXDESK_DEFAULT_BASE) named it: then it replaces the image an older data dir holds. */
  defaultBaseGiven: boolean;
  /** --default-warm: the default base's warm count, set at this start; null keeps the data dir's (2 on a new one). */
  defaultWarm: number | null;
  /** Extra origins allowed to call the API from a browser (e.g. a Vite dev server). */
  allowedOrigins: string[];
  /** Directory of the built renderer to serve at `/`, or null. */
  uiDir: string | null;
  /** How long a detached console session lives on, in seconds. */
  sessionGraceSeconds: number;
  /** Exec output cap per stream, in bytes. */
  execOutputLimit: number;
  logLevel: string;
  /** The log's lines: readable (a terminal) or JSON objects (a file, a pipe, a log collector). */
  logFormat: LogFormat;
  /** Requests per second per token (bursts of 10x); 0 turns limiting off. */
  rateLimit: number;
  /** The largest streamed upload (application/octet-stream body), in bytes. */
  uploadLimit: number;
  /** The most output the engine keeps of one container (its log rotates past it), in bytes. */
  boxLogLimit: number;
  /** How long the preview proxy waits for a box to accept a connection, in seconds; 0: no limit. */
  proxyConnectTimeout: number;
  /** How long the preview proxy waits for a box's response headers once the request is sent, in seconds; 0: no limit. */
  proxyHeaderTimeout: number;
  /** The copy-on-write store's driver: `auto` picks the best that works (storage/detect.ts). */
  storageDriver: 'auto' | StorageDriverName;
  /** The loop-backed store's image size in bytes; null keeps the recorded one (at first: a fifth of the free space, 5 to 30 GiB). */
  storageSize: number | null;
  /** --new-admin-token: make a new admin token at start and write it to the token file. */
  newAdminToken: boolean;
  /** --engine NAME=URL, in order (the first is the default region); empty: the local engine, found, as `local`. */
  engines: EngineFlag[];
  /** --engine-tls-dir: the TLS files of tcp:// engines. */
  engineTlsDir: string | null;
}

/** One --engine: a region's name and where its engine is (a URL, or a Docker context's name). */
export interface EngineFlag {
  name: string;
  url: string;
}

const REGION_NAME = /^[a-z0-9][a-z0-9-]{0,30}$/;

/** `NAME=URL[,NAME=URL…]` (each --engine adds one): names unique, lowercase, as box names are. */
export function parseEngines(value: string | undefined): EngineFlag[] {
  if (!value) return [];
  const engines = value.split(',').map((part) => {
    const at = part.indexOf('=');
    const [name, url] = at > 0 ? [part.slice(0, at).trim(), part.slice(at + 1).trim()] : ['', ''];
    if (!REGION_NAME.test(name) || !url)
      throw new ConfigError(
        `--engine must be NAME=URL (a lowercase name of letters, digits and '-'; a unix://, tcp://, ssh:// URL or a Docker context's name), got "${part}"`,
      );
    return { name, url };
  });
  const names = engines.map((e) => e.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new ConfigError(`--engine names each region once; "${twice}" is given twice`);
  return engines;
}

/** The API's port when neither --port nor BOXDESK_PORT gives one. */
export const DEFAULT_API_PORT = 7420;

export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1'];

/** The platform's app-data directory, like Electron's app.getPath('userData'). */
export function defaultDataDir(): string {
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Boxdesk');
  if (process.platform === 'win32')
    return path.join(process.env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Boxdesk');
  return path.join(process.env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'boxdesk');
}

export { CORE_FLAGS };

/** The core's flags (shared/core-flags.ts), each naming the CoreConfig field it sets. */
type FlagSpec = CoreFlag & { key: keyof CoreConfig };
const FLAGS = CORE_FLAGS as readonly FlagSpec[];

const BY_FLAG = new Map(FLAGS.map((f) => [f.flag, f]));

export const USAGE = `Usage: npm run serve -- [options]

${FLAGS.map((f) => `  ${`${f.flag}${f.arg ? ` ${f.arg}` : ''}`.padEnd(26)} ${f.help}\n  ${''.padEnd(26)} env ${f.env}`).join('\n')}
`;

/** The core's own flags (with their values) out of a command line that also carries others (Electron's, Chromium's). */
export function pickCoreArgs(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const flag = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    const spec = BY_FLAG.get(flag);
    if (!spec) continue;
    out.push(arg);
    if (spec.arg && !arg.includes('=') && argv[i + 1] !== undefined) out.push(argv[++i]!);
  }
  return out;
}

export class ConfigError extends Error {}

const SIZE_UNITS: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/** "1073741824", "512M", "1G", "1GiB": bytes. */
export function parseSize(value: string, flag: string): number {
  const m = /^(\d+)\s*([KMGT]?)(?:i?B)?$/i.exec(value.trim());
  const n = m ? Number(m[1]) * SIZE_UNITS[m[2]!.toUpperCase()]! : NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new ConfigError(`${flag} must be a size in bytes, or with K, M, G or T (e.g. 1G), got "${value}"`);
  return n;
}

/** --box-log-limit's default, also the Docker driver's when it is not given one. */
export const DEFAULT_BOX_LOG_LIMIT = 32 * 1024 ** 2;
/** The smallest --box-log-limit: four rotated files of 256 KiB. */
export const MIN_BOX_LOG_LIMIT = 1024 ** 2;

function parseSeconds(value: string, flag: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 86_400)
    throw new ConfigError(`${flag} must be a number of seconds from 0 (no limit) to 86400, got "${value}"`);
  return n;
}

function parseBoxLogLimit(value: string): number {
  const n = parseSize(value, '--box-log-limit');
  if (n < MIN_BOX_LOG_LIMIT) throw new ConfigError(`--box-log-limit must be at least 1M, got "${value}"`);
  return n;
}

function parseStorageDriver(value: string): 'auto' | StorageDriverName {
  if (value === 'auto' || (STORAGE_DRIVERS as readonly string[]).includes(value))
    return value as 'auto' | StorageDriverName;
  throw new ConfigError(`--storage-driver must be auto, ${STORAGE_DRIVERS.join(', ')}; got "${value}"`);
}

function parseWarm(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0 || n > 32)
    throw new ConfigError(`--default-warm must be a whole number from 0 to 32, got "${value}"`);
  return n;
}

function parsePort(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new ConfigError(`${flag} must be a port number from 0 to 65535, got "${value}"`);
  return n;
}

/** The egress proxy's port: a fixed one (boxes' rules and environment name it), never 0. */
function parseEgressPort(value: string): number {
  const n = parsePort(value, '--egress-port');
  if (n === 0) throw new ConfigError('--egress-port must be a port number from 1 to 65535 (boxes are told it)');
  return n;
}

function egressHostsFile(value: string): string {
  const file = path.resolve(value);
  if (!fs.existsSync(file))
    throw new ConfigError(`--egress-hosts: no file "${file}"; give a hosts-format file ("ADDRESS NAME…" a line)`);
  return file;
}

export type LogFormat = 'pretty' | 'json';

/** --log-format, else readable lines where a person reads them (a terminal) and JSON where a program does. */
export function parseLogFormat(value: string | undefined, terminal: boolean): LogFormat {
  if (value === undefined) return terminal ? 'pretty' : 'json';
  if (value === 'pretty' || value === 'json') return value;
  throw new ConfigError(`--log-format must be pretty or json, got "${value}"`);
}

/** `terminal`: whether the log (stdout) goes to a terminal, for --log-format's default. */
export function resolveConfig(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  terminal = process.stdout.isTTY === true,
): CoreConfig {
  const raw: Partial<Record<keyof CoreConfig, string>> = {};
  for (const { env: name, key } of FLAGS) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const repeated = new Set<keyof CoreConfig>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    const spec = BY_FLAG.get(flag);
    if (!spec) throw new ConfigError(`unknown option ${arg}\n\n${USAGE}`);
    if (!spec.arg) {
      if (inline !== undefined) throw new ConfigError(`${flag} takes no value`);
      raw[spec.key] = 'true';
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new ConfigError(`${flag} needs a value`);
    // --engine repeats: each adds a region (the environment's list is replaced by the flags').
    raw[spec.key] = spec.key === 'engines' && repeated.has(spec.key) ? `${raw[spec.key]},${value}` : value;
    repeated.add(spec.key);
  }
  const host = raw.host ?? '127.0.0.1';
  if (!LOOPBACK_HOSTS.includes(host)) {
    throw new ConfigError(
      `--host must be a loopback address (127.0.0.1, localhost or ::1), got "${host}": Boxdesk serves this machine only`,
    );
  }
  const rateLimit = Number(raw.rateLimit ?? 100);
  if (!Number.isFinite(rateLimit) || rateLimit < 0)
    throw new ConfigError('--rate-limit must be a number of requests per second, 0 or more');
  const defaultBase = raw.defaultBase ?? 'debian:bookworm-slim';
  if (!isImageReference(defaultBase))
    throw new ConfigError(`--default-base must be an image reference like debian:bookworm-slim, got "${defaultBase}"`);
  const grace = Number(raw.sessionGraceSeconds ?? 60);
  if (!Number.isInteger(grace) || grace < 0) throw new ConfigError('--session-grace must be a whole number of seconds');
  return {
    host,
    port: parsePort(raw.port ?? String(DEFAULT_API_PORT), '--port'),
    proxyPort: parsePort(raw.proxyPort ?? '7421', '--proxy-port'),
    egressHosts: raw.egressHosts ? egressHostsFile(raw.egressHosts) : null,
    egressPort: parseEgressPort(raw.egressPort ?? '7479'),
    dataDir: path.resolve(raw.dataDir ?? defaultDataDir()),
    defaultBase,
    defaultBaseGiven: raw.defaultBase !== undefined,
    defaultWarm: raw.defaultWarm === undefined ? null : parseWarm(raw.defaultWarm),
    allowedOrigins: (raw.allowedOrigins ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    uiDir: raw.uiDir ? path.resolve(raw.uiDir) : null,
    sessionGraceSeconds: grace,
    execOutputLimit: 10 * 1024 * 1024,
    logLevel: raw.logLevel ?? 'info',
    logFormat: parseLogFormat(raw.logFormat, terminal),
    rateLimit,
    uploadLimit: parseSize(raw.uploadLimit ?? '1G', '--upload-limit'),
    boxLogLimit: raw.boxLogLimit === undefined ? DEFAULT_BOX_LOG_LIMIT : parseBoxLogLimit(raw.boxLogLimit),
    proxyConnectTimeout: parseSeconds(raw.proxyConnectTimeout ?? '10', '--proxy-connect-timeout'),
    proxyHeaderTimeout: parseSeconds(raw.proxyHeaderTimeout ?? '60', '--proxy-header-timeout'),
    storageDriver: parseStorageDriver(raw.storageDriver ?? 'auto'),
    storageSize: raw.storageSize ? parseSize(raw.storageSize, '--storage-size') : null,
    newAdminToken: raw.newAdminToken !== undefined && raw.newAdminToken !== 'false' && raw.newAdminToken !== '0',
    engines: parseEngines(raw.engines),
    engineTlsDir: raw.engineTlsDir ? path.resolve(raw.engineTlsDir) : null,
  };
}
