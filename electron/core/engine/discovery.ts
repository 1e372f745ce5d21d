import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';
import { parseJsonObject } from '../../../shared/json-object';

/** Where the local engine was found, and how: what GET /v1/system, Settings and `box health` say. */
export interface EngineEndpoint {
  /** unix:///…, tcp://…, ssh://… */
  url: string;
  /** How it was found, in words: "DOCKER_HOST", `the Docker context "colima"`, "Docker's socket", … */
  foundBy: string;
  /** dockerode's options; undefined: dockerode reads DOCKER_HOST and its TLS variables itself. */
  options: Docker.DockerOptions | undefined;
}

/** What discovery reads: the environment, the home directory and the filesystem (tests give their own). */
export interface DiscoveryHost {
  env: NodeJS.ProcessEnv;
  home: string;
  uid: number;
  /** True when a Unix socket exists at this path. */
  isSocket(file: string): boolean;
  readFile(file: string): string | null;
}

export const realHost = (): DiscoveryHost => ({
  env: process.env,
  home: os.homedir(),
  uid: process.getuid?.() ?? 0,
  isSocket: (file) => {
    try {
      return fs.statSync(file).isSocket();
    } catch {
      return false;
    }
  },
  readFile: (file) => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch {
      return null;
    }
  },
});

const DOCKER_SOCKET = '/var/run/docker.sock';

/**
 * The local engine, found as the docker CLI and Podman find theirs (SPEC: Engines and regions):
 * DOCKER_HOST, then the current Docker context (DOCKER_CONTEXT, else the config's currentContext),
 * then Docker's socket (rootful, then rootless), then Podman's (rootful, then rootless). With none
 * there, Docker's default socket: the engine shows as down, and Boxdesk connects once it is up.
 */
export function discoverEngine(host: DiscoveryHost = realHost()): EngineEndpoint {
  const fromEnv = host.env.DOCKER_HOST?.trim();
  if (fromEnv) return { url: fromEnv, foundBy: 'DOCKER_HOST', options: undefined };
  const context = currentContext(host);
  if (context) return context;
  const runtimeDir = host.env.XDG_RUNTIME_DIR || `/run/user/${host.uid}`;
  const sockets: [string, string][] = [
    [DOCKER_SOCKET, "Docker's socket"],
    [path.join(runtimeDir, 'docker.sock'), "rootless Docker's socket"],
    ['/run/podman/podman.sock', "Podman's socket (rootful)"],
    [path.join(runtimeDir, 'podman', 'podman.sock'), "Podman's socket (rootless)"],
  ];
  const found = sockets.find(([file]) => host.isSocket(file));
  const [file, foundBy] = found ?? [DOCKER_SOCKET, "Docker's default socket (no engine found yet)"];
  return { url: `unix://${file}`, foundBy, options: { socketPath: file } };
}

/** The current Docker context's endpoint, or null for none or "default" (which is DOCKER_HOST or the socket). */
function currentContext(host: DiscoveryHost): EngineEndpoint | null {
  const configDir = host.env.DOCKER_CONFIG || path.join(host.home, '.docker');
  let name = host.env.DOCKER_CONTEXT?.trim();
  if (!name) {
    const config = parseJsonObject(host.readFile(path.join(configDir, 'config.json')));
    name = typeof config?.currentContext === 'string' ? config.currentContext : undefined;
  }
  if (!name || name === 'default') return null;
  return contextEndpoint(name, host, configDir);
}

/** A Docker context's endpoint by its name, or null when there is no such context. */
function contextEndpoint(
  name: string,
  host: DiscoveryHost,
  configDir = host.env.DOCKER_CONFIG || path.join(host.home, '.docker'),
): EngineEndpoint | null {
  // The docker CLI keeps each context under the sha256 of its name.
  const digest = createHash('sha256').update(name).digest('hex');
  const meta = parseJsonObject(host.readFile(path.join(configDir, 'contexts', 'meta', digest, 'meta.json')));
  const endpoints = meta?.Endpoints as Record<string, { Host?: unknown; SkipTLSVerify?: unknown }> | undefined;
  const url = endpoints?.docker?.Host;
  if (typeof url !== 'string' || !url) return null;
  const tlsDir = path.join(configDir, 'contexts', 'tls', digest, 'docker');
  return { url, foundBy: `the Docker context "${name}"`, options: optionsFor(url, host, tlsDir) };
}

/**
 * An engine given to the core (--engine NAME=URL): a unix://, tcp:// (TLS from `tlsDir` when it
 * has Docker's three files), https:// or ssh:// URL, or the name of a Docker context.
 */
export function givenEngine(url: string, tlsDir: string | null, host: DiscoveryHost = realHost()): EngineEndpoint {
  if (!url.includes('://')) {
    const context = contextEndpoint(url, host);
    if (!context) throw new Error(`"${url}" is neither an engine URL (unix://, tcp://, ssh://) nor a Docker context`);
    return context;
  }
  return { url, foundBy: 'given to the core (--engine)', options: optionsFor(url, host, tlsDir ?? undefined) };
}

/** dockerode's options for an engine URL; a tcp:// endpoint with TLS files beside its context speaks https. */
export function optionsFor(url: string, host: DiscoveryHost, tlsDir?: string): Docker.DockerOptions {
  const parsed = new URL(url);
  if (parsed.protocol === 'unix:') return { socketPath: decodeURIComponent(parsed.pathname) };
  if (parsed.protocol === 'ssh:') {
    return {
      protocol: 'ssh',
      host: parsed.hostname,
      port: Number(parsed.port) || 22,
      ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    };
  }
  if (parsed.protocol === 'tcp:' || parsed.protocol === 'http:' || parsed.protocol === 'https:') {
    const tls = tlsDir ? tlsFiles(host, tlsDir) : null;
    return {
      protocol: tls || parsed.protocol === 'https:' ? 'https' : 'http',
      host: parsed.hostname,
      port: Number(parsed.port) || (tls ? 2376 : 2375),
      ...(tls ?? {}),
    };
  }
  throw new Error(`the engine URL ${url} is not unix://, tcp://, https:// or ssh://`);
}

function tlsFiles(host: DiscoveryHost, dir: string): { ca: string; cert: string; key: string } | null {
  const [ca, cert, key] = ['ca.pem', 'cert.pem', 'key.pem'].map((f) => host.readFile(path.join(dir, f)));
  return ca && cert && key ? { ca, cert, key } : null;
}
