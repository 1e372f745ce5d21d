import type { FastifyBaseLogger } from 'fastify';
import fs from 'node:fs';
import path from 'node:path';
import type { ContainerEngine } from '../container-engine';
import { withBoxAgent } from './agent-engine';
import { findAgentFiles } from './files';
import { AgentHub } from './hub';

/** What GET /v1/system says of the box agent. */
export interface AgentReport {
  available: boolean;
  version: string | null;
  reason?: string;
}

export interface BoxAgentSetup {
  engine: ContainerEngine;
  report: AgentReport;
  hub: AgentHub | null;
}

/** Longest Unix socket path the kernel takes (sun_path, with its NUL). */
const MAX_SOCKET_PATH = 107;

/**
 * The engine the core uses: with the box agent where it can run (a built agent binary for this
 * machine, an engine on this machine, so a host directory can be mounted into boxes), else the
 * engine alone, and why (GET /v1/system → agent.reason).
 */
export function setUpBoxAgent(
  engine: ContainerEngine,
  dataDir: string,
  boxes: {
    idOf: (labels: Record<string, string>) => string | null;
    labelsOf: (boxId: string) => Record<string, string>;
  },
  log: FastifyBaseLogger,
  /** The agents' directory in the data dir: one per region (each region's hub owns its boxes'). */
  dirName = 'agents',
): BoxAgentSetup {
  const files = findAgentFiles();
  const without = (reason: string): BoxAgentSetup => ({
    engine,
    report: { available: false, version: 'version' in files ? files.version : null, reason },
    hub: null,
  });
  if ('missing' in files) return without(`${files.missing}: exec, consoles, jobs and files go through the engine`);
  if (process.env.BOXDESK_NO_AGENT === '1')
    return without('BOXDESK_NO_AGENT=1: exec, consoles, jobs and files go through the engine');
  if (!engine.endpoint.url.startsWith('unix://'))
    return without(
      `the engine (${engine.endpoint.url}) is not on this machine, so the agent's socket cannot be mounted into boxes: exec, consoles, jobs and files go through the engine`,
    );
  const root = path.join(fs.realpathSync(dataDir), dirName);
  if (path.join(root, 'box_00000000000000000000', 'core.sock').length > MAX_SOCKET_PATH)
    return without(`the data dir's path is too long for a Unix socket under it (${root})`);
  const hub = new AgentHub(root, log);
  return {
    engine: withBoxAgent(engine, { hub, binary: files.binary, boxIdOf: boxes.idOf, labelsOf: boxes.labelsOf, log }),
    report: { available: true, version: files.version },
    hub,
  };
}
