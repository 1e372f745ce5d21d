import type { Box, BoxCreate, BoxUpdate } from '../../../../shared/schemas/box';
import {
  DEFAULT_NETWORK,
  parseAllowEntry,
  type EgressMode,
  type ResolvedNetwork,
} from '../../../../shared/schemas/network';
import { mapToPairs, pairsRule, pairsToMap, type Pair } from '../../kit/pairs';
import { dnsLabelError, numberError } from '../../kit/validators';
import { mountsError, rowsToMounts, type MountRow } from '../volumes/mount-rows';
import { clockError, lifecycleInput, lifecycleValues, type LifecycleValues } from './lifecycle-form';

export const MIB = 1024 * 1024;

export interface BoxValues {
  name: string;
  source: 'base' | 'fork';
  base: string | null;
  fork: string | null;
  /** The region to make it in; null: the first (a fork stays in its source's). */
  region: string | null;
  cpus: number | string;
  ram_mb: number | string;
  environment: Pair[];
  tags: Pair[];
  mounts: MountRow[];
  lifecycle: LifecycleValues;
  /** Internet: open, off, or only the hosts in `allow` (one a line). */
  egress: EgressMode;
  allow: string;
  /** Whether it may reach this computer's own addresses (network.host). */
  host: boolean;
  /** The secrets it holds placeholders of. */
  secrets: string[];
}

/** The form for a new box, or filled from the box being edited. */
export function boxValues(box?: Box): BoxValues {
  return {
    name: box?.name ?? '',
    source: 'base',
    base: null,
    fork: null,
    region: null,
    cpus: box?.config.cpus ?? '',
    ram_mb: box?.config.ram_mb ?? '',
    environment: mapToPairs(box?.environment),
    tags: mapToPairs(box?.tags),
    mounts: [],
    lifecycle: lifecycleValues(box),
    egress: box?.network.egress ?? DEFAULT_NETWORK.egress,
    allow: (box?.network.allow ?? []).join('\n'),
    host: box?.network.host ?? DEFAULT_NETWORK.host,
    secrets: box?.secrets ?? [],
  };
}

export type BoxField = keyof BoxValues;

/** The form field a problem's `errors[].path` concerns (`config.cpus` → cpus). */
export function boxFieldOf(path: string): BoxField | null {
  if (path === 'name' || path === 'base' || path === 'fork') return path;
  if (path.startsWith('config.cpus')) return 'cpus';
  if (path.startsWith('config.ram_mb')) return 'ram_mb';
  if (path.startsWith('config.region')) return 'region';
  if (path.startsWith('environment')) return 'environment';
  if (path.startsWith('tags')) return 'tags';
  if (path.startsWith('data_mounts')) return 'mounts';
  if (path.startsWith('lifecycle')) return 'lifecycle';
  if (path.startsWith('network.allow')) return 'allow';
  if (path.startsWith('network.host')) return 'host';
  if (path.startsWith('secrets')) return 'secrets';
  if (path.startsWith('network')) return 'egress';
  return null;
}

/** The schema's rules, as you type; the limits are what the engine has (null: not known). */
export function boxRules(editing: boolean, maxCpus: number | null, maxRam: number | null) {
  const note = '(what the engine has)';
  return {
    name: (v: string) => (editing ? null : dnsLabelError(v)),
    fork: (v: string | null, values: BoxValues) =>
      !editing && values.source === 'fork' && !v ? 'Pick the box to fork' : null,
    cpus: (v: number | string) => numberError(v, { what: 'CPUs', min: 1, max: maxCpus, note }),
    ram_mb: (v: number | string) => numberError(v, { what: 'Memory', min: 64, max: maxRam, note }),
    environment: pairsRule('environment'),
    tags: pairsRule('tags'),
    mounts: (v: MountRow[]) => (editing ? null : mountsError(v)),
    lifecycle: {
      pause: { amount: (_: unknown, v: BoxValues) => clockError(v.lifecycle.pause) },
      stop: { amount: (_: unknown, v: BoxValues) => clockError(v.lifecycle.stop) },
      remove: { amount: (_: unknown, v: BoxValues) => clockError(v.lifecycle.remove) },
      ttl: { amount: (_: unknown, v: BoxValues) => clockError(v.lifecycle.ttl) },
    },
    allow: (v: string, values: BoxValues) => (values.egress === 'allowlist' ? allowError(v) : null),
  };
}

/** The allow list's lines: one destination each, blank lines left out. */
function allowLines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

/** The first line of the allow list that is not a destination, and why. */
export function allowError(text: string): string | null {
  for (const line of allowLines(text)) {
    const parsed = parseAllowEntry(line);
    if ('error' in parsed) return `${line}: ${parsed.error}`;
  }
  return null;
}

/** The box's `network` as the form has it (the allow list kept while it is not used, as the API keeps it). */
export function networkOf(v: BoxValues): ResolvedNetwork {
  return { egress: v.egress, allow: allowLines(v.allow), host: v.host };
}

function configOf(v: BoxValues) {
  return {
    ...(v.cpus !== '' ? { cpus: Number(v.cpus) } : {}),
    ...(v.ram_mb !== '' ? { ram_mb: Number(v.ram_mb) } : {}),
  };
}

/** POST /boxes from the form: only what was given, defaults left to the core. */
export function createBody(v: BoxValues): BoxCreate {
  const config = { ...configOf(v), ...(v.source === 'base' && v.region ? { region: v.region } : {}) };
  const body: BoxCreate = { name: v.name, ...(Object.keys(config).length ? { config } : {}) };
  if (v.source === 'fork' && v.fork) body.fork = v.fork;
  if (v.source === 'base' && v.base) body.base = v.base;
  if (v.environment.length) body.environment = pairsToMap(v.environment);
  if (v.tags.length) body.tags = pairsToMap(v.tags);
  if (v.mounts.length) body.data_mounts = rowsToMounts(v.mounts);
  const lifecycle = lifecycleInput(v.lifecycle);
  if (Object.values(lifecycle).some((x) => x !== null)) body.lifecycle = lifecycle;
  const network = { ...networkOf(v), allow: v.egress === 'allowlist' ? allowLines(v.allow) : [] };
  if (JSON.stringify(network) !== JSON.stringify(DEFAULT_NETWORK)) body.network = network;
  if (v.secrets.length) body.secrets = v.secrets;
  return body;
}

/** PUT /boxes/{name}: limits, environment, tags, the clocks and network as the form has them. */
export function updateBody(v: BoxValues): BoxUpdate {
  return {
    config: configOf(v),
    environment: pairsToMap(v.environment),
    tags: pairsToMap(v.tags),
    lifecycle: lifecycleInput(v.lifecycle),
    network: networkOf(v),
    secrets: v.secrets,
  };
}
