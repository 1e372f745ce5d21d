import fs from 'node:fs';
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before } from 'node:test';
import type { Box } from '../shared/schemas/box';
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
  /** fetch against the core with the admin token (override with headers.authorization); `signal` abandons it. */
  api(
    method: string,
    pathname: string,
    body?: unknown,
    headers?: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<Response>;
}

export interface TestCoreOptions {
  args?: string[];
  engine?: ContainerEngine;
  /** Several engines, each a region (the first the default). */
  engines?: { name: string; engine: ContainerEngine }[];
  env?: NodeJS.ProcessEnv;
  dataDir?: string;
  boxQueueWaitMs?: number;
  maxImageLayers?: number;
}

/** A real core in this process on a free port with a fresh data dir and the busybox base. */
export async function startTestCore(options: TestCoreOptions = {}): Promise<TestCore> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? tempDataDir();
  const config = resolveConfig(
    [
      ...['--port', '0', '--proxy-port', '0', '--data-dir', dataDir, '--default-base', TEST_IMAGE],
      // No warm pool unless a test asks for one (its containers would compete with the test's for the CPUs).
      ...['--default-warm', '0'],
      ...['--storage-driver', TEST_STORAGE_DRIVER, ...(options.args ?? [])],
    ],
    options.env ?? {},
  );
  const core = await startCore(config, {
    engine: options.engine,
    engines: options.engines,
    logger: process.env.DBG ? { level: 'error' } : false,
    boxQueueWaitMs: options.boxQueueWaitMs,
    maxImageLayers: options.maxImageLayers,
  });
  const token = fs.readFileSync(path.join(dataDir, 'token'), 'utf8').trim();
  const api = (
    method: string,
    pathname: string,
    body?: unknown,
    headers: Record<string, string> = {},
    signal?: AbortSignal,
  ) =>
    fetch(core.url + pathname, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      signal,
    });
  const close = async () => {
    await core.close();
    if (ownDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { core, url: core.url, token, dataDir, close, api };
}

/** A test file's core: started before its tests and handed to `use`; after them, `cleanUp` runs and it closes. */
export function withTestCore(
  use: (t: TestCore) => void,
  cleanUp: (t: TestCore) => Promise<void>,
  options: TestCoreOptions = {},
): void {
  let t: TestCore;
  before(async () => {
    t = await startTestCore(options);
    use(t);
  });
  after(async () => {
    await cleanUp(t);
    await t.close();
  });
}

/** A test file's core whose boxes live at `boxesPath` (`/v1/projects/<p>/boxes`): deleted after the tests. */
export function withBoxesCore(boxesPath: string, use: (t: TestCore) => void, options: TestCoreOptions = {}): void {
  withTestCore(use, (t) => deleteBoxes(t, boxesPath), options);
}

/** Deletes every box listed at `boxesPath`. */
export async function deleteBoxes(t: TestCore, boxesPath: string): Promise<void> {
  const { items } = (await (await t.api('GET', `${boxesPath}?limit=500`)).json()) as { items: Box[] };
  for (const b of items) await t.api('DELETE', `${boxesPath}/${b.name}`);
}

/** Creates a box at `boxesPath`; it must answer 201. */
export async function createBox(t: TestCore, boxesPath: string, body: Record<string, unknown>): Promise<Box> {
  const res = await t.api('POST', boxesPath, body);
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as Box;
}

/**
 * Opens `GET <boxPath>/logs?follow=true&tail=0`, runs `trigger` (something that makes the box's
 * main process write), and reads the stream until `marker` shows up (`trigger` again every 2 s,
 * at most 10 times): what was read.
 */
export async function followLogsUntil(
  t: TestCore,
  boxPath: string,
  marker: string,
  trigger: () => Promise<unknown>,
): Promise<string> {
  const controller = new AbortController();
  const res = await fetch(`${t.url}${boxPath}/logs?follow=true&tail=0`, {
    headers: { authorization: `Bearer ${t.token}` },
    signal: controller.signal,
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  // Podman's follow answers before its reader is at the log's end (its headers come only with a
  // first line), so a line written at once can fall before it: the line is written again every
  // 2 s until it is read, and the test still fails when a follow never delivers it.
  let text = '';
  let read = reader.read();
  for (let tries = 0; !text.includes(marker) && tries < 10; tries++) {
    await trigger();
    const deadline = Date.now() + 2000;
    while (!text.includes(marker) && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      const next = await Promise.race([
        read,
        new Promise<'later'>((resolve) => (timer = setTimeout(() => resolve('later'), deadline - Date.now()))),
      ]);
      clearTimeout(timer);
      if (next === 'later') break;
      if (next.done) {
        controller.abort();
        return text;
      }
      text += decoder.decode(next.value, { stream: true });
      read = reader.read();
    }
  }
  read.catch(() => undefined); // the abort ends the read still waiting
  controller.abort();
  return text;
}
