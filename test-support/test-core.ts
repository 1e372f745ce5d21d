import fs from 'node:fs';
import path from 'node:path';
import { resolveConfig } from '../electron/core/config';
import { startCore, type Core } from '../electron/core/core';
import type { ContainerEngine } from '../electron/core/engine/container-engine';
import { TEST_IMAGE, TEST_STORAGE_DRIVER, tempDataDir } from './core-process';

export interface TestCore {
  core: Core;
  url: string;
  token: string;
  dataDir: string;
  close(): Promise<void>;
  /** fetch against the core with the admin token (override with headers.authorization). */
  api(method: string, pathname: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
}

/** A real core in this process on a free port with a fresh data dir and the busybox base. */
export async function startTestCore(
  options: {
    args?: string[];
    engine?: ContainerEngine;
    env?: NodeJS.ProcessEnv;
    dataDir?: string;
    boxQueueWaitMs?: number;
  } = {},
): Promise<TestCore> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? tempDataDir();
  const config = resolveConfig(
    [
      ...['--port', '0', '--proxy-port', '0', '--data-dir', dataDir, '--default-base', TEST_IMAGE],
      ...['--storage-driver', TEST_STORAGE_DRIVER, ...(options.args ?? [])],
    ],
    options.env ?? {},
  );
  const core = await startCore(config, {
    engine: options.engine,
    logger: process.env.DBG ? { level: 'error' } : false,
    boxQueueWaitMs: options.boxQueueWaitMs,
  });
  const token = fs.readFileSync(path.join(dataDir, 'token'), 'utf8').trim();
  const api = (method: string, pathname: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(core.url + pathname, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  const close = async () => {
    await core.close();
    if (ownDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { core, url: core.url, token, dataDir, close, api };
}
