import assert from 'node:assert/strict';
import type { Box } from '../shared/schemas/box';
import { file, type DirNode } from '../electron/core/engine/memory/memory-fs';
import { MemoryEngine } from '../electron/core/engine/memory/memory-engine';
import type { Program } from '../electron/core/engine/memory/memory-process';
import { busyboxRoot, programFile } from '../electron/core/engine/memory/memory-programs';
import { TEST_IMAGE } from './core-process';
import { poll } from './poll';
import { startTestCore, type TestCore } from './test-core';

export interface MemoryCore extends TestCore {
  engine: MemoryEngine;
}

/**
 * A real core (HTTP on a free port, SQLite in a temp dir, every service) on
 * the in-memory engine, its default base the busybox-like image under the
 * test image's name. For unit tests of what lies above the driver.
 */
export async function startMemoryCore(
  options: { engine?: MemoryEngine; args?: string[]; boxQueueWaitMs?: number; dataDir?: string } = {},
): Promise<MemoryCore> {
  const engine = options.engine ?? new MemoryEngine({ statsIntervalMs: 50 });
  if (!(await engine.inspectImage(TEST_IMAGE))) engine.addImage(TEST_IMAGE);
  const core = await startTestCore({ ...options, engine });
  const close = async () => {
    await core.close();
    // The engine's containers run in this process: their programs must not outlive the test.
    await engine.dispose();
  };
  return { ...core, engine, close };
}

let programs = 0;

/**
 * An image like the test image with /bin/sh replaced: by a script run by
 * busybox's sh (`#!/bin/busybox sh`), by a program, or removed (null).
 * A box's main process is `/bin/sh -c …`, so this decides how it behaves.
 */
export function imageWithShell(engine: MemoryEngine, ref: string, sh: string | Program | null): string {
  const root = busyboxRoot();
  const bin = root.entries.get('bin') as DirNode;
  if (sh === null) bin.entries.delete('sh');
  else if (typeof sh === 'string') bin.entries.set('sh', file(`#!/bin/busybox sh\n${sh}\n`, 0o755));
  else {
    const name = `test-sh-${++programs}`;
    engine.defineProgram(name, sh);
    bin.entries.set('sh', programFile(name));
  }
  return engine.addImage(ref, root);
}

/** Registers `image` as base `name` through the API. */
export async function registerBase(t: TestCore, name: string, image: string): Promise<void> {
  const res = await t.api('POST', '/v1/bases', { name, image });
  assert.equal(res.status, 201, await res.text());
}

/** Polls until `probe` gives a value (the reconciler acts on engine events a moment after them). */
export function until<T>(probe: () => Promise<T | null | undefined | false>, what: string, ms = 10_000): Promise<T> {
  return poll(probe, { ms, what, everyMs: 20 });
}

/** The box as GET answers it. */
export async function getBox(t: TestCore, path: string): Promise<Box> {
  const res = await t.api('GET', path);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as Box;
}

/** Waits until the box at `path` has `status`; answers it. */
export function untilStatus(t: TestCore, path: string, status: Box['status']): Promise<Box> {
  return until(async () => {
    const box = await getBox(t, path);
    return box.status === status ? box : null;
  }, `${path} to be ${status}`);
}

/** The problem document of a refused request, checked for its status and code. */
export async function problem(
  res: Response,
  status: number,
  code: string,
): Promise<{ detail: string; hint?: string; errors?: { path: string; message: string }[] }> {
  const body = (await res.json()) as {
    code: string;
    detail: string;
    hint?: string;
    errors?: { path: string; message: string }[];
  };
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(body.code, code, JSON.stringify(body));
  return body;
}
