import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import Fastify from 'fastify';
import { TEST_IMAGE, tempDataDir } from '../../../test-support/core-process';
import type { Db } from '../db/database';
import { openCoreDatabase } from '../modules';
import type { ContainerEngine } from '../engine/container-engine';
import { DockerEngine } from '../engine/docker/docker-engine';
import { FileWriter, TEMP_PREFIX, type WritePlan } from './file-writer';
import { directChildren, singleFile } from './tar-entries';
import { UploadIntentStore } from './upload-intents';

// The writer against the real engine (a container that was never started: files work on
// stopped boxes), in both ways it can replace a file: the driver's renamePath, and (for a
// driver without one) a hard link through putArchive plus a removal.

const docker = new DockerEngine();
/** The same engine without its rename call: the writer's fallback. */
const withoutRename = Object.create(docker, { renamePath: { value: undefined } }) as ContainerEngine;
const dataDir = tempDataDir();
let db: Db;
let containerId = '';

before(async () => {
  db = openCoreDatabase(dataDir);
  containerId = await docker.createContainer({
    name: `filewriter-${Date.now()}`,
    image: TEST_IMAGE,
    command: ['sleep', '600'],
    hostname: 'fw',
    env: {},
    labels: { 'boxdesk.test': 'file-writer' },
    limits: { cpus: 1, ramMb: 128, pidsLimit: 256 },
    storageGb: null,
    graceSeconds: 1,
  });
});

after(async () => {
  if (containerId) await docker.removeContainer(containerId).catch(() => undefined);
  db?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function writerOn(engine: ContainerEngine): { writer: FileWriter; intents: UploadIntentStore } {
  const intents = new UploadIntentStore(db);
  return { writer: new FileWriter({ engine, intents, log: Fastify({ logger: false }).log }), intents };
}

const plan = (dir: string, file: string): WritePlan => ({
  box: { id: 'box_test', project: 'p', name: 'b', containerId },
  dir,
  missing: [],
  final: `${dir}/${file}`,
  asked: `${dir}/${file}`,
});

async function read(path: string): Promise<string> {
  const { stream } = await singleFile(await docker.getArchive(containerId, path), path);
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

const names = async (dir: string) =>
  (await directChildren(await docker.getArchive(containerId, dir), dir)).map((s) => s.path);

for (const [how, engine] of [
  ['renamePath', docker],
  ['a hard link and a removal', withoutRename],
] as const) {
  test(`racing overwrites by ${how}: every one lands whole, one wins, no temporary name is left`, async () => {
    const dir = `/tmp/${how === 'renamePath' ? 'rename' : 'link'}`;
    const { writer, intents } = writerOn(engine);
    await writer.write({ ...plan('/tmp', 'x'), missing: [dir], final: `${dir}/f` }, file('first'));
    const bodies = Array.from({ length: 12 }, (_, i) => `writer ${i}\n`.repeat(50 + i));
    const stats = await Promise.all(bodies.map((b) => writer.write(plan(dir, 'f'), file(b))));
    assert.ok(stats.every((s, i) => s.size === bodies[i]!.length && s.type === 'file'));
    assert.ok(bodies.includes(await read(`${dir}/f`)), 'the file is one whole write');
    assert.deepEqual(await names(dir), [`${dir}/f`]);
    assert.deepEqual(intents.list(), [], 'every intent is gone with its temporary file');
  });

  test(`the file keeps the mode it was written with, by ${how}`, async () => {
    const { writer } = writerOn(engine);
    // At the root, where the engine applied a link entry's mode to the linked file.
    const target = `/mode-${how === 'renamePath' ? 'rename' : 'link'}.sh`;
    const answered = await writer.write({ ...plan('/', 'x'), final: target }, file('#!/bin/sh\n', 0o755));
    assert.equal(answered.mode, 0o755);
    assert.equal((await docker.statPath(containerId, target))?.mode, 0o755, 'the mode in the box, after the swap');
  });
}

test('what a crash left (an intent and its temporary file) is removed by clearInterrupted, the target kept', async () => {
  const { writer, intents } = writerOn(docker);
  await writer.write(plan('/tmp', 'kept'), file('old'));
  const temp = `/tmp/${TEMP_PREFIX}crashed`;
  const crashed = intents.record({
    box_id: 'box_test',
    project: 'p',
    box: 'b',
    container_id: containerId,
    temp_path: temp,
    target: '/tmp/kept',
  });
  await writer.write(plan('/tmp', `${TEMP_PREFIX}crashed`), file('half a file'));
  assert.deepEqual(intents.list(), [crashed]);
  assert.equal(await writer.clearInterrupted(() => containerId), 1);
  assert.equal(await docker.statPath(containerId, temp), null);
  assert.equal(await read('/tmp/kept'), 'old');
  assert.deepEqual(intents.list(), []);
  // A box that is gone takes its files with it: the intent just goes.
  intents.record({ ...crashed, temp_path: `/tmp/${TEMP_PREFIX}gone` });
  assert.equal(await writer.clearInterrupted(() => null), 1);
  assert.deepEqual(intents.list(), []);
});

function file(text: string, mode = 0o644): { mode: number; size: number; body: Readable } {
  return { mode, size: Buffer.byteLength(text), body: Readable.from([Buffer.from(text)]) };
}
