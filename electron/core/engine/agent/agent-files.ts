import type { FastifyBaseLogger } from 'fastify';
import type http from 'node:http';
import type net from 'node:net';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EngineError, type ContainerEngine, type PathStat } from '../container-engine';
import { ENGINE_SERVES, ToEngine, refusalOf, writeContent } from './agent-content';
import { readFileContent } from './agent-download';
import { agentRequest, call } from './client';
import type { AgentHub } from './hub';

/**
 * How long a read (stat, tar) waits for the agent's first answer: it answers at once unless its box
 * is frozen behind the core's back (a pause by another client), where the engine still can.
 */
const READS_ANSWERED_WITHIN_MS = 5_000;

/** An answer other than 2xx as the engine's error of the same kind, with the agent's words (the engine's, for the same refusal). */
function failure(res: http.IncomingMessage): Promise<Error> {
  if (res.statusCode === ENGINE_SERVES) {
    res.resume();
    return Promise.resolve(new ToEngine());
  }
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    res.on('data', (d: Buffer) => parts.push(d));
    res.on('error', () => resolve(new EngineError('failed', `the box agent's answer was cut off (${res.statusCode})`)));
    res.on('end', () => resolve(refusalOf(res.statusCode ?? 500, Buffer.concat(parts).toString('utf8'))));
  });
}

/**
 * One file call on a connection the agent opened. With `body`, the request says `Expect:
 * 100-continue` and the body is sent only once the agent has taken the call: an agent that leaves
 * it to the engine answers first, and the body is still whole for the engine.
 */
function send(
  socket: net.Socket,
  method: string,
  path: string,
  body?: Readable | string,
): Promise<{ res: http.IncomingMessage; sent: boolean }> {
  return new Promise((resolve, reject) => {
    let sent = false;
    const req = agentRequest(
      socket,
      method,
      path,
      typeof body === 'string'
        ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
        : body
          ? { 'content-type': 'application/x-tar', expect: '100-continue' }
          : {},
    );
    const timer =
      method === 'GET' ? setTimeout(() => req.destroy(new ToEngine(true)), READS_ANSWERED_WITHIN_MS) : undefined;
    req.on('error', (err) => reject(Object.assign(err, { sent })));
    // The first answer is what is timed: a long read (a big tar) streams for as long as it takes.
    req.on('response', (res) => {
      clearTimeout(timer);
      resolve({ res, sent });
    });
    req.on('close', () => clearTimeout(timer));
    if (typeof body !== 'object') return void req.end(body);
    // A body that fails before the agent asks for it (an upload cut off) ends the call at once:
    // waiting for the agent's 100 Continue would hold the box's file calls behind it.
    const early = (err?: Error) => {
      if (!sent) req.destroy(err ?? new Error('the upload ended before the box agent took it'));
    };
    body.once('error', early);
    body.once('close', () => early());
    req.on('continue', () => {
      sent = true;
      body.off('error', early);
      pipeline(body, req).catch((err: Error) => req.destroy(err));
    });
  });
}

/** The agent's answer, a 2xx, or its refusal thrown. */
async function answer(socket: net.Socket, method: string, path: string, body?: Readable | string) {
  const { res } = await send(socket, method, path, body);
  if ((res.statusCode ?? 500) >= 300) throw await failure(res);
  return res;
}

async function json<T>(res: http.IncomingMessage): Promise<T> {
  const parts: Buffer[] = [];
  for await (const chunk of res) parts.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as T;
}

/** A connection error before the agent took the call: the engine can still answer it. */
const unsent = (err: unknown) => !(err instanceof EngineError) && !(err as { sent?: boolean }).sent;

const q = (p: string) => encodeURIComponent(p);

export interface AgentFilesOptions {
  hub: AgentHub;
  /** The box id of a container (null: not a box). */
  boxOf: (containerId: string) => Promise<string | null>;
  log: FastifyBaseLogger;
}

/** The features of each box's agent (as started) in its hello (`files`, `file-content`): asked once per start. */
function fileAgents(hub: AgentHub) {
  const features = new Map<string, Promise<string[]>>();
  const serves = (boxId: string, feature: string): Promise<boolean> => {
    let known = features.get(boxId);
    if (!known) {
      known = hub.take(boxId, 1_000).then(async (socket) => {
        if (!socket) {
          features.delete(boxId); // not connected now: asked again next time
          return [];
        }
        const hello = await call<{ features?: string[] }>(socket, 'GET', '/v1/hello', undefined, 5_000);
        return hello.features ?? [];
      });
      known.catch(() => features.delete(boxId));
      features.set(boxId, known);
    }
    return known.then((list) => list.includes(feature)).catch(() => false);
  };
  return { serves, forget: (boxId: string) => features.delete(boxId) };
}

/**
 * Which containers are paused: their agents cannot answer, the engine's archive calls can. Known
 * from the pauses made through this engine, and for a container first seen here (made before the
 * core started) from one inspect.
 */
function pauseTracking(engine: ContainerEngine) {
  const paused = new Map<string, boolean>();
  return {
    async pause(id: string): Promise<void> {
      paused.set(id, true);
      await engine.pauseContainer(id).catch(async (err: unknown) => {
        paused.delete(id); // an inspect tells next time
        throw err;
      });
    },
    thawed: (id: string) => void paused.set(id, false),
    /** Its agent did not answer: taken as frozen until it is thawed or started again. */
    stalled: (id: string) => void paused.set(id, true),
    /** Asked again with an inspect next time (the container started again, or is gone). */
    forget: (id: string) => void paused.delete(id),
    async frozen(id: string): Promise<boolean> {
      const known = paused.get(id);
      if (known !== undefined) return known;
      const state = await engine.inspectContainer(id).catch(() => null);
      paused.set(id, state?.state === 'paused');
      return state?.state === 'paused';
    },
  };
}

type Pauses = ReturnType<typeof pauseTracking>;

/**
 * Runs a file call on the box's agent where it serves it, else (or on a 421, a stalled agent, a
 * connection lost before the call was taken) the engine's own call.
 */
function fileRouter(
  options: AgentFilesOptions,
  pauses: Pauses,
  serves: (boxId: string, feature: string) => Promise<boolean>,
) {
  const { hub, boxOf, log } = options;

  /** A connection to the box's agent for a file call, or null: the engine answers. */
  async function line(containerId: string, feature: string): Promise<net.Socket | null> {
    const boxId = await boxOf(containerId);
    if (!boxId || (await pauses.frozen(containerId)) || !(await serves(boxId, feature))) return null;
    return hub.take(boxId, 1_000);
  }

  function movesToEngine(err: unknown, containerId: string, what: string): boolean {
    if (err instanceof ToEngine && !err.stalled) return true;
    if (err instanceof ToEngine) {
      log.warn(
        { containerId },
        `the box agent did not answer (${what}) in time; the engine answers until the box starts again`,
      );
      pauses.stalled(containerId);
      return true;
    }
    if (!unsent(err)) return false;
    log.warn({ err, containerId }, `the box agent did not take a file call (${what}); the engine answers it`);
    return true;
  }

  return async function either<T>(
    containerId: string,
    what: string,
    viaAgent: (socket: net.Socket) => Promise<T>,
    viaEngine: () => Promise<T>,
    feature = 'files',
  ): Promise<T> {
    const socket = await line(containerId, feature);
    if (!socket) return viaEngine();
    try {
      return await viaAgent(socket);
    } catch (err) {
      if (!movesToEngine(err, containerId, what)) throw err;
      return viaEngine();
    }
  };
}

/**
 * The engine's archive calls (what the files routes, uploads of a folder and job cleanup use)
 * through the box's agent (docs/protocol.md): a running box whose agent says it serves files
 * answers them itself, without the engine's archive path in between. A stopped box, a box without
 * an agent, an agent too old or not root, and the paths the agent leaves to the engine get the
 * engine's own calls: same answers. So does a paused box (its agent is frozen; the engine's calls
 * work on its filesystem as they did before the agent).
 */
export function agentFileCalls(engine: ContainerEngine, options: AgentFilesOptions) {
  const pauses = pauseTracking(engine);
  const { serves, forget } = fileAgents(options.hub);
  const either = fileRouter(options, pauses, serves);

  const overrides: Partial<ContainerEngine> = {
    pauseContainer: pauses.pause,
    getArchive: (id, path) =>
      either(
        id,
        'read',
        (s) => answer(s, 'GET', `/v1/files/archive?path=${q(path)}`),
        () => engine.getArchive(id, path),
      ),
    putArchive: (id, dir, tar) =>
      either(
        id,
        'write',
        async (s) => void (await answer(s, 'PUT', `/v1/files/archive?path=${q(dir)}`, tar)).resume(),
        () => engine.putArchive(id, dir, tar),
      ),
    // Null and false: the agent has no content calls (or leaves the path to the engine), and the
    // caller moves the bytes in a tar through getArchive and putArchive, agent or engine alike.
    readFile: (id, path) =>
      either(
        id,
        'read',
        (s) => readFileContent(s, path, READS_ANSWERED_WITHIN_MS),
        () => Promise.resolve(null),
        'file-content',
      ),
    writeFile: (id, path, mode, size, body) =>
      either(
        id,
        'write',
        async (s) => {
          await writeContent(s, path, mode, size, body);
          return true;
        },
        () => Promise.resolve(false),
        'file-content',
      ),
    statPath: (id, path) =>
      either(
        id,
        'stat',
        async (s) => {
          const st = await json<PathStat | null>(await answer(s, 'GET', `/v1/files/stat?path=${q(path)}`));
          return st && { ...st, mtime: new Date(st.mtime).toISOString() };
        },
        () => engine.statPath(id, path),
      ),
    removePath: (id, path) =>
      either(
        id,
        'remove',
        async (s) => void (await answer(s, 'POST', `/v1/files/remove?path=${q(path)}`)).resume(),
        () => engine.removePath(id, path),
      ),
  };
  const renamePath = engine.renamePath?.bind(engine);
  if (renamePath)
    overrides.renamePath = (id, from, to, mode) =>
      either(
        id,
        'rename',
        async (s) => void (await answer(s, 'POST', '/v1/files/rename', JSON.stringify({ from, to, mode }))).resume(),
        () => renamePath(id, from, to, mode),
      );

  return {
    overrides,
    /** The container was thawed. */
    thawed: pauses.thawed,
    /** The container started (its agent with it: asked anew), or is gone. */
    restarted: (id: string, boxId: string | null) => {
      pauses.forget(id);
      if (boxId) forget(boxId);
    },
  };
}
