import type { Readable } from 'node:stream';
import { api } from '../../test-support/core-process';
import { tarArchive, textFile } from '../../shared/tar-writer';
import { ratioResult, type ScenarioResult } from '../report';
import { docker } from '../raw-engine';
import { alternate, progress, timed } from '../stats';
import { expectJson, type BenchContext, type BenchScenario } from './context';

const WARMUP = 1;
const TARGET = 2;
const BASE = 'bench-rebuild';

/** The same Dockerfile both ways: three steps past FROM, all served by the engine's cache once warm. */
function context(from: string): Buffer {
  const dockerfile = `FROM ${from}\nCOPY app.txt /opt/app.txt\nRUN cat /opt/app.txt > /opt/copy\nENV READY=1\n`;
  return Buffer.from(tarArchive([textFile('Dockerfile', dockerfile), textFile('app.txt', 'bench\n')]));
}

/** POST /v1/bases/{name}/build, then its log followed to the end: done. */
async function ours(ctx: BenchContext): Promise<void> {
  const res = await fetch(`${ctx.core.url}/v1/bases/${BASE}/build`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ctx.core.token}`, 'content-type': 'application/x-tar' },
    body: context('boxdesk/default'),
  });
  const build = await expectJson<{ id: string }>(res, 202, 'build');
  await (await api(ctx.core, 'GET', `/v1/bases/${BASE}/builds/${build.id}/log?follow=1`)).text();
  const ended = await expectJson<{ status: string; error?: string }>(
    await api(ctx.core, 'GET', `/v1/bases/${BASE}/builds/${build.id}`),
    200,
    'get build',
  );
  if (ended.status !== 'done') throw new Error(`the build ${ended.status}: ${ended.error ?? ''}`);
}

/** The engine's own build of the same Dockerfile (dockerode, the classic builder), followed to its end. */
async function raw(image: string): Promise<void> {
  const stream = (await docker.buildImage(context(image) as unknown as NodeJS.ReadableStream, {
    rm: true,
    forcerm: true,
  })) as Readable;
  await new Promise<void>((resolve, reject) =>
    docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())),
  );
}

/** A rebuild with a warm cache: the core's build route against the engine's build API, alternating. */
async function run(ctx: BenchContext): Promise<ScenarioResult> {
  const image = (await docker.getImage(ctx.image).inspect()).Id;
  progress(`base rebuild: warming the cache, then ${ctx.n} rebuilds each way, alternating`);
  try {
    await alternate(
      WARMUP,
      () => ours(ctx).then(() => 0),
      () => raw(image).then(() => 0),
    );
    const runs = await alternate(
      ctx.n,
      async () => (await timed(() => ours(ctx))).ms,
      async () => (await timed(() => raw(image))).ms,
    );
    return ratioResult('base rebuild, warm cache: POST …/build + log vs the engine build', runs, TARGET, [
      'both read the context whole; ours also checks it, resolves FROM boxdesk/default, adds 3 label steps (cached) and follows the log',
    ]);
  } finally {
    await api(ctx.core, 'DELETE', `/v1/bases/${BASE}`).then((r) => r.arrayBuffer());
  }
}

export const baseRebuild: BenchScenario = { name: 'base-rebuild', run };
