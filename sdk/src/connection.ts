import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/*
 * Where the core is and which token to send: one set of rules for the `box` CLI and the SDK
 * (`new Boxdesk()` with no options connects as `box` would). Node only: it reads the data dir.
 */

export const DEFAULT_PORT = 7420;

/** Where the connection settings came from, for `box --help` and error messages. */
export type Source =
  'flag' | 'profile' | 'SERVICE_URL' | 'SERVICE_API_URL' | 'SERVICE_TOKEN' | 'local core' | 'token file' | 'none';

export interface Connection {
  url: string;
  urlSource: Source;
  token: string | undefined;
  tokenSource: Source;
  profile: string | undefined;
  /** The token file consulted when no token was given, for error hints. */
  tokenFile: string;
}

export interface ConnectionInput {
  url?: string;
  token?: string;
  profile?: string;
}

export interface Platform {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  homedir: string;
  readFile(file: string): string | undefined;
}

export const realPlatform = (): Platform => ({
  env: process.env,
  platform: process.platform,
  homedir: os.homedir(),
  readFile: (file) => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  },
});

/**
 * The core's data dir, as electron/core/config.ts computes it (the CLI may not
 * import electron/): BOXDESK_DATA_DIR, else the platform's app-data directory.
 */
export function defaultDataDir(p: Pick<Platform, 'env' | 'platform' | 'homedir'>): string {
  const { env, homedir } = p;
  if (env.BOXDESK_DATA_DIR) return env.BOXDESK_DATA_DIR;
  const join = p.platform === 'win32' ? path.win32.join : path.posix.join;
  if (p.platform === 'darwin') return join(homedir, 'Library', 'Application Support', 'Boxdesk');
  if (p.platform === 'win32') return join(env.APPDATA ?? join(homedir, 'AppData', 'Roaming'), 'Boxdesk');
  return join(env.XDG_DATA_HOME ?? join(homedir, '.local', 'share'), 'boxdesk');
}

/** The file in its data dir where a running core says where it listens (electron/core/listening.ts writes it). */
export const LISTENING_FILE = 'listening.json';

/**
 * Where the local core listens: what it wrote in its data dir when it started (`listening.json`,
 * so a core on another port is found), else BOXDESK_PORT or the default port on 127.0.0.1.
 */
export function localCore(p: Platform): string {
  const written = p.readFile(path.join(defaultDataDir(p), LISTENING_FILE));
  if (written) {
    try {
      const { url } = JSON.parse(written) as { url?: unknown };
      if (typeof url === 'string' && /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(url)) return url;
    } catch {
      // a file cut short: the default below
    }
  }
  return localCoreUrl(p.env);
}

export function localCoreUrl(env: NodeJS.ProcessEnv): string {
  const port = env.BOXDESK_PORT && /^\d+$/.test(env.BOXDESK_PORT) ? Number(env.BOXDESK_PORT) : DEFAULT_PORT;
  return `http://127.0.0.1:${port}`;
}

/** `my-prod` → `MY_PROD`, the infix of SERVICE_PROFILE_<NAME>_URL. */
export function profileEnvName(profile: string): string {
  return profile.toUpperCase().replace(/-/g, '_');
}

const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v === '' ? undefined : v);

/**
 * URL: --url, else SERVICE_PROFILE_<NAME>_URL of the selected profile (--profile or
 * SERVICE_PROFILE), else SERVICE_URL, else SERVICE_API_URL, else the local core.
 * Token: --token, else SERVICE_PROFILE_<NAME>_TOKEN, else SERVICE_TOKEN, else the local core's
 * token file (read only when no token was given anywhere: a given token is never replaced).
 */
export function resolveConnection(input: ConnectionInput, p: Platform): Connection {
  const { env } = p;
  const profile = nonEmpty(input.profile) ?? nonEmpty(env.SERVICE_PROFILE);
  const prefix = profile ? `SERVICE_PROFILE_${profileEnvName(profile)}_` : undefined;
  const tokenFile = path.join(defaultDataDir(p), 'token');

  let url: string;
  let urlSource: Source;
  const profileUrl = prefix ? nonEmpty(env[`${prefix}URL`]) : undefined;
  if (nonEmpty(input.url)) [url, urlSource] = [input.url!, 'flag'];
  else if (profileUrl) [url, urlSource] = [profileUrl, 'profile'];
  else if (nonEmpty(env.SERVICE_URL)) [url, urlSource] = [env.SERVICE_URL!, 'SERVICE_URL'];
  else if (nonEmpty(env.SERVICE_API_URL)) [url, urlSource] = [env.SERVICE_API_URL!, 'SERVICE_API_URL'];
  else [url, urlSource] = [localCore(p), 'local core'];

  let token: string | undefined;
  let tokenSource: Source = 'none';
  const profileToken = prefix ? nonEmpty(env[`${prefix}TOKEN`]) : undefined;
  if (nonEmpty(input.token)) [token, tokenSource] = [input.token, 'flag'];
  else if (profileToken) [token, tokenSource] = [profileToken, 'profile'];
  else if (nonEmpty(env.SERVICE_TOKEN)) [token, tokenSource] = [env.SERVICE_TOKEN, 'SERVICE_TOKEN'];
  else {
    const fromFile = nonEmpty(p.readFile(tokenFile)?.trim());
    if (fromFile) [token, tokenSource] = [fromFile, 'token file'];
  }
  return { url: url.replace(/\/+$/, ''), urlSource, token, tokenSource, profile, tokenFile };
}
