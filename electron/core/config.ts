import os from 'node:os';
import path from 'node:path';

export interface CoreConfig {
  host: string;
  port: number;
  proxyPort: number;
  dataDir: string;
  defaultBase: string;
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
  /** Largest file upload, in bytes. */
  uploadLimit: number;
}

export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1'];

/** The platform's app-data directory, like Electron's app.getPath('userData'). */
export function defaultDataDir(): string {
  const home = os.homedir();
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Boxdesk');
  if (process.platform === 'win32') return path.join(process.env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Boxdesk');
  return path.join(process.env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'boxdesk');
}

const FLAGS: Record<string, { env: string; key: keyof CoreConfig }> = {
  '--host': { env: 'BOXDESK_HOST', key: 'host' },
  '--port': { env: 'BOXDESK_PORT', key: 'port' },
  '--proxy-port': { env: 'BOXDESK_PROXY_PORT', key: 'proxyPort' },
  '--data-dir': { env: 'BOXDESK_DATA_DIR', key: 'dataDir' },
  '--default-base': { env: 'BOXDESK_DEFAULT_BASE', key: 'defaultBase' },
  '--allowed-origin': { env: 'BOXDESK_ALLOWED_ORIGINS', key: 'allowedOrigins' },
  '--ui-dir': { env: 'BOXDESK_UI_DIR', key: 'uiDir' },
  '--session-grace': { env: 'BOXDESK_SESSION_GRACE_SECONDS', key: 'sessionGraceSeconds' },
  '--log-level': { env: 'BOXDESK_LOG_LEVEL', key: 'logLevel' },
  '--rate-limit': { env: 'BOXDESK_RATE_LIMIT', key: 'rateLimit' },
  '--upload-limit': { env: 'BOXDESK_UPLOAD_LIMIT', key: 'uploadLimit' },
};

export const USAGE = `Usage: npm run serve -- [options]

  --host HOST            address to bind; loopback only (default 127.0.0.1)   BOXDESK_HOST
  --port N               API port (default 7420; 0 picks a free one)           BOXDESK_PORT
  --proxy-port N         port of the reverse proxy for published boxes (7421)  BOXDESK_PROXY_PORT
  --data-dir DIR         where the database and token live                     BOXDESK_DATA_DIR
                         (default ${defaultDataDir()})
  --default-base IMAGE   image of the base "default" (debian:bookworm-slim)    BOXDESK_DEFAULT_BASE
  --allowed-origin URL   extra browser origin allowed to call the API          BOXDESK_ALLOWED_ORIGINS (comma-separated)
  --ui-dir DIR           serve this renderer build at /                        BOXDESK_UI_DIR
  --session-grace S      seconds a detached console lives on (default 60)      BOXDESK_SESSION_GRACE_SECONDS
  --log-level LEVEL      fatal|error|warn|info|debug (default info)            BOXDESK_LOG_LEVEL
  --rate-limit N         requests/s per token, bursts of 10x; 0 = off (100)     BOXDESK_RATE_LIMIT
  --upload-limit SIZE    largest file upload: bytes, or with K/M/G (1G)        BOXDESK_UPLOAD_LIMIT
`;

export class ConfigError extends Error {}

function parsePort(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`${flag} must be a port number from 0 to 65535, got "${value}"`);
  return n;
}

/** A size: bytes, or a number with K, M or G (powers of 1024). */
function parseSize(value: string, flag: string): number {
  const m = /^(\d+)\s*([KMG]i?B?)?$/i.exec(value.trim());
  if (!m) throw new ConfigError(`${flag} must be a size like 1048576, 512M or 1G, got "${value}"`);
  const unit = (m[2] ?? '').charAt(0).toUpperCase();
  const n = Number(m[1]) * (unit === 'K' ? 1024 : unit === 'M' ? 1024 ** 2 : unit === 'G' ? 1024 ** 3 : 1);
  if (n < 1) throw new ConfigError(`${flag} must be at least 1 byte`);
  return n;
}

export function resolveConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): CoreConfig {
  const raw: Partial<Record<keyof CoreConfig, string>> = {};
  for (const { env: name, key } of Object.values(FLAGS)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const spec = FLAGS[flag];
    if (!spec) throw new ConfigError(`unknown option ${arg}\n\n${USAGE}`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new ConfigError(`${flag} needs a value`);
    raw[spec.key] = value;
  }
  const host = raw.host ?? '127.0.0.1';
  if (!LOOPBACK_HOSTS.includes(host)) {
    throw new ConfigError(`--host must be a loopback address (127.0.0.1, localhost or ::1), got "${host}": Boxdesk serves this machine only`);
  }
  const rateLimit = Number(raw.rateLimit ?? 100);
  if (!Number.isFinite(rateLimit) || rateLimit < 0) throw new ConfigError('--rate-limit must be a number of requests per second, 0 or more');
  const grace = Number(raw.sessionGraceSeconds ?? 60);
  if (!Number.isInteger(grace) || grace < 0) throw new ConfigError('--session-grace must be a whole number of seconds');
  return {
    host,
    port: parsePort(raw.port ?? '7420', '--port'),
    proxyPort: parsePort(raw.proxyPort ?? '7421', '--proxy-port'),
    dataDir: path.resolve(raw.dataDir ?? defaultDataDir()),
    defaultBase: raw.defaultBase ?? 'debian:bookworm-slim',
    allowedOrigins: (raw.allowedOrigins ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    uiDir: raw.uiDir ? path.resolve(raw.uiDir) : null,
    sessionGraceSeconds: grace,
    execOutputLimit: 10 * 1024 * 1024,
    logLevel: raw.logLevel ?? 'info',
    rateLimit,
    uploadLimit: parseSize(raw.uploadLimit ?? '1G', '--upload-limit'),
  };
}
