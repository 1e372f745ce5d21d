import type { FastifyBaseLogger } from 'fastify';
import type { CoreConfig } from '../../config';
import { DisposableStore, toDisposable, type Disposable } from '../../lifetime';
import { setUpBoxAgent, type AgentReport } from '../agent';
import type { AgentHub } from '../agent/hub';
import type { ContainerEngine } from '../container-engine';
import { givenEngine } from '../discovery';
import { DockerEngine } from '../docker/docker-engine';
import { EngineMonitor } from '../engine-monitor';
import { regionalEngine } from './regional-engine';
import { Regions, type Region } from './regions';

/** The name of the one region when no --engine names any. */
export const LOCAL_REGION = 'local';

export interface RegionsSetup extends Disposable {
  regions: Regions;
  /** The engine the modules use: every region behind one ContainerEngine (regional-engine.ts). */
  engine: ContainerEngine;
  /** The first region's monitor (the core's "engine" in /healthz and /v1/system). */
  monitor: EngineMonitor;
  /** The box agent as the first region has it. */
  agent: AgentReport;
  agentHub: AgentHub | null;
  /** Starts watching every region; `onUp` runs whenever a region other than the first comes (back) up. */
  watchOthers(onUp: () => Promise<void>): Promise<void>;
}

/**
 * Each engine the core drives, as a region: the ones --engine names (the first is the default
 * region), else the local engine as discovery finds it, called `local` (tests give their own).
 * Each has its own box agent directory and monitor.
 */
export async function makeRegions(
  config: CoreConfig,
  given: { name: string; engine: ContainerEngine }[] | undefined,
  boxes: Parameters<typeof setUpBoxAgent>[2],
  log: FastifyBaseLogger,
): Promise<RegionsSetup> {
  const owned = new DisposableStore();
  const engines =
    given ??
    (config.engines.length
      ? config.engines.map(({ name, url }) => {
          const endpoint = givenEngine(url, config.engineTlsDir);
          const settings = { logLimitBytes: config.boxLogLimit, endpoint };
          return { name, engine: new DockerEngine(endpoint.options, settings) as ContainerEngine };
        })
      : [{ name: LOCAL_REGION, engine: new DockerEngine(undefined, { logLimitBytes: config.boxLogLimit }) }]);
  const list: Region[] = [];
  let first: ReturnType<typeof setUpBoxAgent> | null = null;
  try {
    for (const [i, { name, engine }] of engines.entries()) {
      const setup = setUpBoxAgent(engine, config.dataDir, boxes, log, i === 0 ? 'agents' : `agents-${name}`);
      if (setup.hub) {
        const hub = setup.hub;
        await hub.start();
        owned.add(toDisposable(() => hub.stop()));
      }
      first ??= setup;
      const monitor = owned.add(new EngineMonitor(setup.engine, log));
      list.push({ name, engine: setup.engine, monitor });
    }
  } catch (err) {
    await owned.dispose();
    throw err;
  }
  const regions = new Regions(list);
  return {
    regions,
    engine: regionalEngine(regions, log),
    monitor: regions.first.monitor,
    agent: first!.report,
    agentHub: first!.hub,
    async watchOthers(onUp) {
      const others = regions.all.slice(1);
      for (const region of others) region.monitor.onUp(onUp);
      await Promise.all(others.map((r) => r.monitor.start()));
    },
    dispose: () => owned.dispose(),
  };
}
