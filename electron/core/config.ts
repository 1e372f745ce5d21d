import os from 'node:os';
import path from 'node:path';
import { isImageReference } from '../../shared/schemas/common';
import { STORAGE_DRIVERS, type StorageDriverName } from './storage/storage-driver';

export interface CoreConfig {
  host: string;
  port: number;
  proxyPort: number;
  dataDir: string;
  defaultBase: string;
  /** Whether --default-base (or BOXDESK_DEFAULT_BASE) named it: then it replaces the image an older data dir holds. */
  defaultBaseGiven: boolean;
  /** Extra origins allowed to call the API from a browser (e.g. a Vite dev server). */
  allowedOrigins: string[];
  /** Directory of the built renderer to serve at `/`, or null. */
  uiDir: string | null;
  /** How long a detached console session lives on, in seconds. */
  sessionGraceSeconds: number;
  /** Exec output cap per stream, in bytes. */
  execOutputLimit: number;
  logLevel: string;
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

interface FlagSpec {
  flag: string;
  /** The value's placeholder in the usage text. */
  arg: string;
  env: string;
  key: keyof CoreConfig;
  help: string;
}

/**
 * The core's flags: the one table the headless core (serve.ts), the desktop app (main.ts, which
 * picks these out of Electron's own switches) and the usage text all read.
 */
export const CORE_FLAGS: readonly FlagSpec[] = [
  {
    flag: '--host',
    arg: 'HOST',
    env: 'BOXDESK_HOST',
    key: 'host',
    help: 'address to bind; loopback only (default 127.0.0.1)',
  },
  { flag: '--port', arg: 'N', env: 'BOXDESK_PORT', key: 'port', help: 'API port (default 7420; 0 picks a free one)' },
  {
    flag: '--proxy-port',
    arg: 'N',
    env: 'BOXDESK_PROXY_PORT',
    key: 'proxyPort',
    help: 'port of the reverse proxy for published boxes (7421)',
  },
  {
    flag: '--data-dir',
    arg: 'DIR',
    env: 'BOXDESK_DATA_DIR',
    key: 'dataDir',
    help: `where the database and token live (default ${defaultDataDir()})`,
  },
  {
    flag: '--default-base',
    arg: 'IMAGE',
    env: 'BOXDESK_DEFAULT_BASE',
    key: 'defaultBase',
    help: 'image of the base "default" (debian:bookworm-slim)',
  },
  {
    flag: '--allowed-origin',
    arg: 'URL',
    env: 'BOXDESK_ALLOWED_ORIGINS',
    key: 'allowedOrigins',
    help: 'extra browser origins allowed to call the API (comma-separated)',
  },
  { flag: '--ui-dir', arg: 'DIR', env: 'BOXDESK_UI_DIR', key: 'uiDir', help: 'serve this renderer build at /' },
  {
    flag: '--session-grace',
    arg: 'S',
    env: 'BOXDESK_SESSION_GRACE_SECONDS',
    key: 'sessionGraceSeconds',
    help: 'seconds a detached console lives on (default 60)',
  },
  {
    flag: '--log-level',
    arg: 'LEVEL',
    env: 'BOXDESK_LOG_LEVEL',
    key: 'logLevel',
    help: 'fatal|error|warn|info|debug (default info)',
  },
  {
    flag: '--rate-limit',
    arg: 'N',
    env: 'BOXDESK_RATE_LIMIT',
    key: 'rateLimit',
    help: 'requests/s per token, bursts of 10x; 0 = off (default 100)',
  },
  {
    flag: '--upload-limit',
    arg: 'SIZE',
    env: 'BOXDESK_UPLOAD_LIMIT',
    key: 'uploadLimit',
    help: 'largest streamed upload, bytes or with K/M/G (default 1G)',
  },
  {
    flag: '--box-log-limit',
    arg: 'SIZE',
    env: 'BOXDESK_BOX_LOG_LIMIT',
    key: 'boxLogLimit',
    help: 'output the engine keeps per container, rotated past it; at least 1M (default 32M)',
  },
  {
    flag: '--proxy-connect-timeout',
    arg: 'S',
    env: 'BOXDESK_PROXY_CONNECT_TIMEOUT',
    key: 'proxyConnectTimeout',
    help: 'seconds the preview proxy waits for a box to accept a connection, then 504; 0 = no limit (default 10)',
  },
  {
    flag: '--proxy-header-timeout',
    arg: 'S',
    env: 'BOXDESK_PROXY_HEADER_TIMEOUT',
    key: 'proxyHeaderTimeout',
    help: "seconds the preview proxy waits for a box's response headers, then 504; 0 = no limit (default 60)",
  },
  {
    flag: '--storage-driver',
    arg: 'NAME',
    env: 'BOXDESK_STORAGE_DRIVER',
    key: 'storageDriver',
    help: `copy-on-write store: auto (default: the best that works), ${STORAGE_DRIVERS.join(', ')}`,
  },
  {
    flag: '--storage-size',
    arg: 'SIZE',
    env: 'BOXDESK_STORAGE_SIZE',
    key: 'storageSize',
    help: 'size of the loop-backed store image, e.g. 50G (sparse; grown, never shrunk)',
  },
];

const BY_FLAG = new Map(CORE_FLAGS.map((f) => [f.flag, f]));

export const USAGE = `Usage: npm run serve -- [options]

${CORE_FLAGS.map((f) => `  ${`${f.flag} ${f.arg}`.padEnd(26)} ${f.help}\n  ${''.padEnd(26)} env ${f.env}`).join('\n')}
`;

/** The core's own flags (with their values) out of a command line that also carries others (Electron's, Chromium's). */
export function pickCoreArgs(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const flag = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    if (!BY_FLAG.has(flag)) continue;
    out.push(arg);
    if (!arg.includes('=') && argv[i + 1] !== undefined) out.push(argv[++i]!);
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

function parsePort(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new ConfigError(`${flag} must be a port number from 0 to 65535, got "${value}"`);
  return n;
}

export function resolveConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): CoreConfig {
  const raw: Partial<Record<keyof CoreConfig, string>> = {};
  for (const { env: name, key } of CORE_FLAGS) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    const spec = BY_FLAG.get(flag);
    if (!spec) throw new ConfigError(`unknown option ${arg}\n\n${USAGE}`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new ConfigError(`${flag} needs a value`);
    raw[spec.key] = value;
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
    dataDir: path.resolve(raw.dataDir ?? defaultDataDir()),
    defaultBase,
    defaultBaseGiven: raw.defaultBase !== undefined,
    allowedOrigins: (raw.allowedOrigins ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    uiDir: raw.uiDir ? path.resolve(raw.uiDir) : null,
    sessionGraceSeconds: grace,
    execOutputLimit: 10 * 1024 * 1024,
    logLevel: raw.logLevel ?? 'info',
    rateLimit,
    uploadLimit: parseSize(raw.uploadLimit ?? '1G', '--upload-limit'),
    boxLogLimit: raw.boxLogLimit === undefined ? DEFAULT_BOX_LOG_LIMIT : parseBoxLogLimit(raw.boxLogLimit),
    proxyConnectTimeout: parseSeconds(raw.proxyConnectTimeout ?? '10', '--proxy-connect-timeout'),
    proxyHeaderTimeout: parseSeconds(raw.proxyHeaderTimeout ?? '60', '--proxy-header-timeout'),
    storageDriver: parseStorageDriver(raw.storageDriver ?? 'auto'),
    storageSize: raw.storageSize ? parseSize(raw.storageSize, '--storage-size') : null,
  };
}
