import Docker from 'dockerode';
import fs from 'node:fs';
import { api, startCoreProcess, type CoreProcess } from '../../test-support/core-process';
import { ratioResult, type ScenarioResult } from '../report';
import { rawCreateAndStart, rawExec, rawRemove } from '../raw-engine';
import { alternate, progress, timed } from '../stats';
import { expectJson, type BenchContext, type BenchScenario } from './context';

/** Where scripts/test-env.sh starts Podman's Docker-compatible service. */
const SOCKET = process.env.BOXDESK_PODMAN_SOCKET ?? '/run/boxdesk-podman/podman.sock';
/** Podman's create and remove take about a second each: a smaller sample keeps the run short. */
const MAX_N = 15;
const CREATE_TARGET = 1.2;
const EXEC_TARGET = 0.2;
const WARMUP = 2;

/**
 * Create→running and exec on Podman: a core of its own driving Podman's service against the same
 * calls made straight to that service (the raw baseline), alternating as the Docker scenarios do.
 */
async function run(ctx: BenchContext): Promise<ScenarioResult[]> {
  if (!fs.existsSync(SOCKET))
    throw new Error(
      `no Podman service at ${SOCKET}: start one (podman system service --time=0 unix://${SOCKET} &, as root) or set BOXDESK_PODMAN_SOCKET`,
    );
  const podman = new Docker({ socketPath: SOCKET });
  const core = await startCoreProcess({ env: { DOCKER_HOST: `unix://${SOCKET}` } });
  const project = `${ctx.project}-podman`;
  const boxes = `/v1/projects/${project}/boxes`;
  const made = new Set<string>();
  const rawIds = new Set<string>();
  try {
    const n = Math.min(ctx.n, MAX_N);
    const create = async (name: string) => {
      made.add(name);
      await expectJson(await api(core, 'POST', boxes, { name }), 201, `create box ${name} on Podman`);
    };
    const remove = async (name: string) => {
      await expectJson(await api(core, 'DELETE', `${boxes}/${name}`), 204, `delete box ${name} on Podman`);
      made.delete(name);
    };
    const rawName = (i: number | string) => `boxdesk-bench-raw-podman-${i}-${Math.random().toString(36).slice(2, 8)}`;
    const rawCreate = async (i: number | string) => {
      const id = await rawCreateAndStart(ctx.image, rawName(i), podman);
      rawIds.add(id);
      return id;
    };
    const rawDelete = async (id: string) => {
      await rawRemove(id, podman);
      rawIds.delete(id);
    };

    progress(`podman create→running: warming up, then ${n} boxes and ${n} raw containers, alternating`);
    for (let i = 0; i < WARMUP; i++) {
      await create(`warm${i}`);
      await remove(`warm${i}`);
      await rawDelete(await rawCreate(`warm${i}`));
    }
    const ids: string[] = [];
    const created = await alternate(
      n,
      async (i) => (await timed(() => create(`b${i}`))).ms,
      async (i) => {
        const { ms, value } = await timed(() => rawCreate(i));
        ids[i] = value;
        return ms;
      },
    );

    progress(`podman exec ['true']: ${n} runs each, alternating`);
    const ours = async () => {
      const { ms, value } = await timed(async () =>
        expectJson<{ exit_code: number }>(
          await api(core, 'POST', `${boxes}/b0/exec`, { command: ['true'] }),
          200,
          'exec on Podman',
        ),
      );
      if (value.exit_code !== 0) throw new Error(`exec ['true'] via the core on Podman: exit ${value.exit_code}`);
      return ms;
    };
    const raw = async () => {
      const { ms, value } = await timed(() => rawExec(ids[0]!, ['true'], podman));
      if (value.exitCode !== 0) throw new Error(`exec ['true'] raw on Podman: exit ${value.exitCode}`);
      return ms;
    };
    await alternate(WARMUP, ours, raw);
    const execs = await alternate(n, ours, raw);
    return [
      ratioResult('podman: create → running', created, CREATE_TARGET, [
        `n=${n}; a box (its agent, network, workspace) against a raw create + start, both on Podman ${await podmanVersion(podman)}`,
      ]),
      ratioResult("podman: exec ['true'] round trip", execs, EXEC_TARGET, [
        "the core's exec goes through the box agent; the raw one is Podman's exec create + start + inspect",
      ]),
    ];
  } finally {
    await cleanUp(core, boxes, made, rawIds, podman);
  }
}

async function podmanVersion(podman: Docker): Promise<string> {
  return (await podman.version()).Version;
}

async function cleanUp(
  core: CoreProcess,
  boxes: string,
  made: Set<string>,
  rawIds: Set<string>,
  podman: Docker,
): Promise<void> {
  for (const name of made)
    await api(core, 'DELETE', `${boxes}/${name}`)
      .then((r) => r.arrayBuffer())
      .catch(() => undefined);
  for (const id of rawIds) await rawRemove(id, podman).catch(() => undefined);
  await core.stop();
}

export const podmanEngine: BenchScenario = { name: 'podman', run };
