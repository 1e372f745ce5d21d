import type { FastifyBaseLogger } from 'fastify';
import {
  EngineError,
  type ContainerEngine,
  type ContainerSpec,
  type ExecSpec,
  type ExecState,
  type ExecStreams,
} from '../container-engine';
import { demuxedStreams, ttyStreams } from '../exec-streams';
import { agentFileCalls } from './agent-files';
import { call, createExecCall, inspectExecCall, startStream } from './client';
import type { AgentHub } from './hub';

/** Exec ids the agent made carry their box: `agent:<box id>:<the agent's id>`. */
const PREFIX = 'agent:';

export interface BoxAgentOptions {
  hub: AgentHub;
  /** The agent binary on the engine's host, for the engine's architecture. */
  binary: string;
  /** The box id of a container with these labels, or null for what is not a box (helpers). */
  boxIdOf: (labels: Record<string, string>) => string | null;
  /** The labels that find every container of a box. */
  labelsOf: (boxId: string) => Record<string, string>;
  log: FastifyBaseLogger;
}

/**
 * The engine with Boxdesk's box agent (docs/protocol.md): every box container is made with the
 * agent running its command, and exec — buffered, streamed, consoles, jobs, the sweeps that end
 * them — and the archive calls of the files routes (agent-files.ts) go to the box's agent over its
 * socket, without the engine in the path. A box made before the agent, or whose agent is not
 * connected (stopped, paused, just restarted), gets the engine's own calls: same calls, same
 * answers. Everything else is the engine's.
 */
export function withBoxAgent(engine: ContainerEngine, options: BoxAgentOptions): ContainerEngine {
  const { hub, binary, boxIdOf, labelsOf, log } = options;
  /** Container id → box id (null: not a box), learnt at create or from one inspect. */
  const boxes = new Map<string, string | null>();

  async function boxOf(containerId: string): Promise<string | null> {
    if (boxes.has(containerId)) return boxes.get(containerId)!;
    const state = await engine.inspectContainer(containerId).catch(() => null);
    const boxId = state ? boxIdOf(state.labels) : null;
    if (state) boxes.set(containerId, boxId);
    return boxId;
  }

  const parse = (execId: string) => {
    const [boxId, id] = execId.slice(PREFIX.length).split(':');
    return { boxId: boxId!, id: id! };
  };
  /** A connection to the agent that made `execId`; it went away (the box stopped): not_found, as the engine says. */
  const lineFor = async (execId: string) => {
    const { boxId, id } = parse(execId);
    const socket = await hub.take(boxId);
    if (!socket) throw new EngineError('conflict', `the agent of the box that ran exec ${id} is gone`);
    return { socket, id };
  };

  const files = agentFileCalls(engine, { hub, boxOf, log });

  const overrides: Partial<ContainerEngine> = {
    ...files.overrides,
    async createContainer(spec: ContainerSpec): Promise<string> {
      const boxId = spec.helper ? null : boxIdOf(spec.labels);
      if (!boxId) return engine.createContainer(spec);
      const runDir = await hub.open(boxId);
      const id = await engine.createContainer({ ...spec, agent: { binary, runDir } });
      boxes.set(id, boxId);
      return id;
    },
    async startContainer(id: string): Promise<void> {
      await engine.startContainer(id);
      const boxId = await boxOf(id);
      files.restarted(id, boxId);
      if (boxId) hub.expect(boxId);
    },
    async unpauseContainer(id: string): Promise<void> {
      await engine.unpauseContainer(id);
      files.thawed(id);
      const boxId = await boxOf(id);
      if (boxId) hub.expect(boxId);
    },
    async removeContainer(id: string): Promise<void> {
      const boxId = await boxOf(id);
      await engine.removeContainer(id);
      boxes.delete(id);
      files.restarted(id, boxId);
      // The box's directory goes with its last container (a recreate makes the next one beside the old).
      if (boxId && (await engine.listContainers(labelsOf(boxId))).length === 0) await hub.close(boxId);
    },
    async createExec(containerId: string, spec: ExecSpec): Promise<string> {
      const boxId = await boxOf(containerId);
      const socket = boxId ? await hub.take(boxId, 1_000) : null;
      if (!boxId || !socket) return engine.createExec(containerId, spec);
      try {
        return `${PREFIX}${boxId}:${(await createExecCall(socket, spec)).id}`;
      } catch (err) {
        log.warn({ err, boxId }, 'the box agent did not take an exec; the engine runs it');
        return engine.createExec(containerId, spec);
      }
    },
    async startExec(execId: string, opts: { tty: boolean; stdin: boolean }): Promise<ExecStreams> {
      if (!execId.startsWith(PREFIX)) return engine.startExec(execId, opts);
      const { socket, id } = await lineFor(execId);
      const stream = await startStream(socket, id);
      return opts.tty ? ttyStreams(stream, opts.stdin) : demuxedStreams(stream, opts.stdin);
    },
    async inspectExec(execId: string): Promise<ExecState> {
      if (!execId.startsWith(PREFIX)) return engine.inspectExec(execId);
      const { socket, id } = await lineFor(execId);
      return inspectExecCall(socket, id);
    },
    async resizeExec(execId: string, cols: number, rows: number): Promise<void> {
      if (!execId.startsWith(PREFIX)) return engine.resizeExec(execId, cols, rows);
      const { socket, id } = await lineFor(execId);
      await call(socket, 'POST', `/v1/execs/${id}/resize`, { cols, rows });
    },
  };

  return overriding(engine, overrides);
}

/** `engine` with some of its calls replaced; the others are its own. */
function overriding(engine: ContainerEngine, overrides: Partial<ContainerEngine>): ContainerEngine {
  return new Proxy(engine, {
    get(target, prop, receiver) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof ContainerEngine];
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
