import type { FastifyBaseLogger } from 'fastify';
import fs from 'node:fs';
import path from 'node:path';
import type { ProxyEdgeInfo } from '../../../shared/schemas/system';
import { findEdgeBinary } from '../engine/agent/files';
import type { UpstreamTimeouts } from './box-connector';
import { EdgeProcess, type EdgeRoute, type EdgeUsage } from './edge-process';
import type { PreviewProxy } from './proxy-server';
import type { ProxyRoute, PublishingService } from './service';

/** Longest Unix socket path the kernel takes (sun_path, with its NUL). */
const MAX_SOCKET_PATH = 107;
/** How long a box being paused stays off the edge's table at most (its pause fails, say). */
const PAUSING_MS = 60_000;
/** An edge that ended by itself starts again after 1 s, then 2, 4… up to a minute; an edge that ran a minute starts the count again. */
const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 60_000;
const RESTART_STABLE_MS = 60_000;

export interface ProxyFrontDeps {
  service: PublishingService;
  proxy: PreviewProxy;
  /** Any state change (the bus): the edge's table is made anew. */
  subscribe: (listener: () => void) => () => void;
  /** A box was used through the edge (its idle clocks start again). */
  touch: (boxId: string) => void;
  /** Awaited before a box's container is paused. */
  beforePause: (listener: (boxId: string) => Promise<void>) => void;
  /** Awaited after a box's update is recorded, before it is answered. */
  afterUpdate: (listener: (boxId: string) => Promise<void>) => void;
  dataDir: string;
  timeouts: UpstreamTimeouts;
  log: FastifyBaseLogger;
}

/**
 * Who serves the preview proxy's public port: the edge (agent/cmd/boxdesk-edge, a child process)
 * with the Node proxy behind it on a unix socket, or the Node proxy alone (no edge binary, or the
 * edge gone). The edge answers only routes pushed here: a host the Node proxy routed, to a running
 * box published with auth public (no wake, no relay), at the address the Node proxy itself dialed.
 * The table is pushed again after every state change, before a box is paused and before a change
 * to a box on it (an update, a publish, an unpublish) is answered.
 */
export class ProxyFront {
  private edge: EdgeProcess | null = null;
  private report: ProxyEdgeInfo = { available: false, version: null, requests: 0, bytes: 0 };
  /** Hosts the Node proxy routed to a route the edge may take. */
  private readonly hosts = new Set<string>();
  /** `containerId:port` → the address the Node proxy dialed. */
  private readonly addresses = new Map<string, string>();
  private readonly pausing = new Map<string, number>();
  private pushed = '';
  /** The last push, until the edge has applied it: a push of the same table waits for it too. */
  private applied: Promise<void> = Promise.resolve();
  /** The boxes of the table last pushed. */
  private onEdge = new Set<string>();
  private scheduled = false;
  private publicPort = 0;
  private unsubscribe: () => void = () => undefined;
  /** Where the edge listens and what it runs, to start it again after a crash. */
  private launch: { binary: string; host: string; socket: string } | null = null;
  private startedAt = 0;
  private restartDelay = RESTART_FIRST_MS;
  private restartTimer: NodeJS.Timeout | null = null;
  private restarts = 0;
  private disposed = false;

  constructor(private readonly deps: ProxyFrontDeps) {}

  get info(): ProxyEdgeInfo {
    return this.report;
  }

  /** Listens on host:port (0: a free one), the edge in front where it can be; resolves with the port. */
  async start(host: string, port: number): Promise<number> {
    const { proxy, log } = this.deps;
    const found = findEdgeBinary();
    const without = (reason: string) => {
      this.report = { ...this.report, available: false, reason: `${reason}: the Node proxy serves the port itself` };
      return proxy.listen(host, port);
    };
    if ('missing' in found) return without(found.missing);
    this.report.version = found.version;
    if (process.env.BOXDESK_NO_EDGE === '1') return without('BOXDESK_NO_EDGE=1');
    const socket = path.join(fs.realpathSync(this.deps.dataDir), 'proxy.sock');
    if (socket.length > MAX_SOCKET_PATH)
      return without(`the data dir's path is too long for a Unix socket (${socket})`);
    try {
      await proxy.listenSocket(socket);
    } catch (err) {
      return without(`the Node proxy's socket for the edge could not be made (${(err as Error).message})`);
    }
    this.launch = { binary: found.binary, host, socket };
    const edge = this.newEdge();
    let got: number;
    try {
      got = await edge.start(host, port, socket, this.deps.timeouts);
    } catch (err) {
      if (/is in use/.test((err as Error).message)) throw err;
      this.report = { ...this.report, reason: `${(err as Error).message}: the Node proxy serves the port itself` };
      log.warn({ err }, 'preview proxy: the edge could not start; the Node proxy serves the port itself');
      return proxy.serveFallback(host, port);
    }
    this.edge = edge;
    this.startedAt = Date.now();
    this.report = { ...this.report, available: true, reason: undefined };
    delete this.report.reason;
    this.deps.proxy.observe({
      routed: (h, route) => this.routed(h, route),
      dialed: (containerId, p, address) => this.dialed(containerId, p, address),
    });
    this.unsubscribe = this.deps.subscribe(() => this.schedule());
    this.deps.beforePause((boxId) => this.pause(boxId));
    // A box on the edge's table: its new port, auth or absence is on the edge before the change is
    // answered (a box not on it is the Node proxy's, which reads the change at once).
    const settle = (boxId: string) => (this.onEdge.has(boxId) ? this.push() : Promise.resolve());
    this.deps.afterUpdate(settle);
    this.deps.service.afterRouteChange(settle);
    this.publicPort = got;
    log.info({ pid: edge.pid, port: got }, 'preview proxy: the edge serves the port; the Node proxy is behind it');
    return got;
  }

  private newEdge(): EdgeProcess {
    return new EdgeProcess(this.launch!.binary, {
      activity: (boxes) => this.used(boxes),
      stale: (_box, upstream) => this.forget(upstream),
      exit: (why) => void this.edgeGone(why),
    });
  }

  /**
   * The edge ended by itself (a crash, a kill): the Node proxy takes the port at once (bound
   * beside the next edge, SO_REUSEPORT), and the edge starts again after a backoff.
   */
  private async edgeGone(why: string): Promise<void> {
    const { proxy, log } = this.deps;
    this.edge = null;
    this.pushed = '';
    if (Date.now() - this.startedAt >= RESTART_STABLE_MS) this.restartDelay = RESTART_FIRST_MS;
    const delay = this.nextDelay();
    try {
      await proxy.serveFallback(this.launch!.host, this.publicPort, true);
      this.report = {
        ...this.report,
        available: false,
        reason: `the edge ended (${why}) at ${new Date().toISOString()}: the Node proxy serves the port itself; the edge starts again in ${delay / 1000} s`,
      };
      log.warn(
        { why, restartInMs: delay },
        `preview proxy: the edge ended (${why}); the Node proxy serves port ${this.publicPort} itself; the edge starts again in ${delay / 1000} s`,
      );
    } catch (err) {
      this.report = {
        ...this.report,
        available: false,
        reason: `the edge ended (${why}) and the Node proxy could not take the port (${(err as Error).message}); the edge starts again in ${delay / 1000} s`,
      };
      log.error({ err }, `preview proxy: the edge ended (${why}) and the Node proxy could not take the port`);
    }
    this.scheduleRestart(delay);
  }

  private nextDelay(): number {
    const delay = this.restartDelay;
    this.restartDelay = Math.min(delay * 2, RESTART_MAX_MS);
    return delay;
  }

  private scheduleRestart(delay: number): void {
    if (this.disposed) return;
    this.restartTimer = setTimeout(() => void this.restart(), delay);
  }

  /** Starts the edge again on the port the Node proxy holds meanwhile; once it listens, the Node proxy's listener closes. */
  private async restart(): Promise<void> {
    this.restartTimer = null;
    if (this.disposed || !this.launch) return;
    const { proxy, log } = this.deps;
    const edge = this.newEdge();
    try {
      await edge.start(this.launch.host, this.publicPort, this.launch.socket, this.deps.timeouts, true);
    } catch (err) {
      const delay = this.nextDelay();
      const message = (err as Error).message;
      this.report = {
        ...this.report,
        reason: `the edge could not start again (${message}): the Node proxy serves the port itself; next try in ${delay / 1000} s`,
      };
      log.warn(
        { err, restartInMs: delay },
        `preview proxy: the edge could not start again; next try in ${delay / 1000} s`,
      );
      this.scheduleRestart(delay);
      return;
    }
    if (this.disposed) return void (await edge.stop());
    this.edge = edge;
    this.startedAt = Date.now();
    this.restarts++;
    proxy.closeFallback();
    this.report = { ...this.report, available: true };
    delete this.report.reason;
    log.info(
      { pid: edge.pid, port: this.publicPort, restarts: this.restarts },
      'preview proxy: the edge started again and serves the port; the Node proxy is behind it',
    );
    await this.push();
  }

  private routed(host: string, route: ProxyRoute): void {
    if (!edgeMayTake(route) || this.hosts.has(host)) return;
    if (this.hosts.size > 10_000) this.hosts.clear(); // random Host headers must not grow it without bound
    this.hosts.add(host);
    this.schedule();
  }

  private dialed(containerId: string, port: number, address: string): void {
    const key = `${containerId}:${port}`;
    if (this.addresses.get(key) === address) return;
    if (this.addresses.size > 10_000) this.addresses.clear();
    this.addresses.set(key, address);
    this.schedule();
  }

  private forget(upstream: string): void {
    for (const [key, address] of this.addresses) if (address === upstream) this.addresses.delete(key);
    this.schedule();
  }

  private used(boxes: Record<string, EdgeUsage>): void {
    for (const [boxId, use] of Object.entries(boxes)) {
      if (use.requests > 0) this.deps.touch(boxId);
      this.report.requests += use.requests;
      this.report.bytes += use.bytes;
    }
  }

  /** Before a pause: the box leaves the edge's table, and the edge has applied that. */
  private async pause(boxId: string): Promise<void> {
    this.pausing.set(boxId, Date.now() + PAUSING_MS);
    // Only a box on the edge's table waits for the edge (a pause of any other box is not delayed).
    if (this.onEdge.has(boxId)) await this.push();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.push();
    });
  }

  /** The table as of now, pushed when it changed. */
  private async push(): Promise<void> {
    const edge = this.edge;
    if (!edge) return;
    const routes = this.table();
    const text = JSON.stringify(routes);
    if (text === this.pushed) return this.applied;
    this.pushed = text;
    this.onEdge = new Set(routes.map((r) => r.box));
    this.applied = edge.push(routes);
    await this.applied;
  }

  private table(): EdgeRoute[] {
    const routes: EdgeRoute[] = [];
    const live = new Set<string>();
    const now = Date.now();
    for (const host of this.hosts) {
      const route = this.deps.service.route(host);
      if (!route) continue;
      const key = `${route.container_id}:${route.port}`;
      // A paused box keeps its address (the Node proxy's pooled connections to it are not dialed again).
      if (route.status === 'running' || route.status === 'paused') live.add(key);
      if (!edgeMayTake(route)) {
        if (route.box) this.pausing.delete(route.box.id);
        continue;
      }
      const boxId = route.box!.id;
      const until = this.pausing.get(boxId);
      if (until !== undefined && until > now) continue;
      this.pausing.delete(boxId);
      const upstream = this.addresses.get(key);
      if (upstream) routes.push({ host, box: boxId, upstream, port: route.port! });
    }
    // The address of a box stopped (or gone) may go to another container: it is forgotten.
    for (const key of this.addresses.keys()) if (!live.has(key)) this.addresses.delete(key);
    return routes;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.unsubscribe();
    await this.edge?.stop();
    this.edge = null;
  }
}

/**
 * A route the edge may answer: a running published box, auth public, nothing to wake, nothing
 * unavailable. Not a service's: a deployment waits for its requests in flight (ProxyTraffic), which
 * only the Node proxy counts.
 */
function edgeMayTake(route: ProxyRoute): boolean {
  return (
    route.service === undefined &&
    route.url_auth === 'public' &&
    route.box !== undefined &&
    route.wake === undefined &&
    route.unavailable === undefined &&
    route.status === 'running' &&
    route.container_id !== null &&
    route.port !== null
  );
}
