import http from 'node:http';
import { startKeepAliveServer } from '../keepalive-server';
import type { ScenarioResult } from '../report';
import { alternate, progress, summarize } from '../stats';
import { api, startCoreProcess } from '../../test-support/core-process';
import { PrivateEngine } from '../../test-support/private-engine';
import { expectJson, type BenchContext, type BenchScenario } from './context';
import { requestsPerSecond, type Endpoint } from './publish-proxy';

const PORT = 8080;
const ROUNDS = 3;

/** A box in `region`, running the bench's keep-alive server, published: its endpoint through the proxy. */
async function published(ctx: BenchContext, name: string, region: string): Promise<Endpoint> {
  const boxes = `/v1/projects/${ctx.project}/boxes`;
  await expectJson(await api(ctx.core, 'POST', boxes, { name, config: { region } }), 201, `create ${name}`);
  await startKeepAliveServer(ctx, name, PORT);
  const res = await api(ctx.core, 'POST', `${boxes}/${name}/publish`, { port: PORT, auth: 'public' });
  const url = new URL((await expectJson<{ url: string }>(res, 200, `publish ${name}`)).url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  return { host: '127.0.0.1', port: Number(url.port), hostHeader: url.host, agent };
}

/**
 * A published box on an engine whose addresses the host cannot reach (a second dockerd in its own
 * network namespace: the proxy relays through an exec of the box agent) against the same box on
 * the local engine (a TCP connection to its address), both through the same core's proxy, rounds
 * alternating. Its own core with two regions; needs root for the second engine.
 */
async function run(ctx: BenchContext): Promise<ScenarioResult> {
  const skip = PrivateEngine.unavailableReason();
  if (skip) throw new Error(`needs a second engine: ${skip}`);
  const far = new PrivateEngine(['--bip', '172.31.250.1/24']);
  await far.start();
  const core = await startCoreProcess({
    args: ['--engine', 'local=unix:///var/run/docker.sock', '--engine', `far=unix://${far.socketPath}`],
  });
  const own: BenchContext = { ...ctx, core, boxes: new Set() };
  try {
    const near = await published(own, 'near', 'local');
    const away = await published(own, 'away', 'far');
    progress(`publish far: ${ROUNDS} rounds of 5 s at concurrency 8 through each, alternating`);
    await requestsPerSecond(away);
    const rps = await alternate(
      ROUNDS,
      () => requestsPerSecond(away),
      () => requestsPerSecond(near),
    );
    near.agent.destroy();
    away.agent.destroy();
    const ours = summarize(rps.ours);
    const raw = summarize(rps.raw);
    return {
      name: 'publish: unreachable engine (relay) vs reachable',
      unit: 'req/s',
      n: rps.ours.length,
      ours,
      raw,
      ratioKind: 'relayed/direct median',
      ratio: ours.p50 / raw.p50,
      target: 'reported',
      verdict: '—',
      notes: [
        'both through the preview proxy of one core with two regions; the far box is reached by the agent relay over an engine exec',
      ],
    };
  } finally {
    for (const name of ['near', 'away']) await api(core, 'DELETE', `/v1/projects/${ctx.project}/boxes/${name}`);
    await core.stop();
    await far.destroy();
  }
}

export const publishFar: BenchScenario = { name: 'publish far', run };
