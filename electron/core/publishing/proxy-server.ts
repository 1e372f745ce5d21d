import type { FastifyBaseLogger } from 'fastify';
import { ProxyServer } from 'http-proxy-3';
import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { EngineError, type ContainerEngine } from '../engine/container-engine';
import type { Disposable } from '../lifetime';
import { BoxAgent, ListenerError, UpstreamTimeoutError, type UpstreamTimeouts } from './box-connector';
import type { PreviewAuth } from './preview-auth';
import { refuseUpgrade, sendPage } from './preview-pages';
import type { ProxyTraffic } from './proxy-traffic';
import type { ProxyRoute, PublishingService } from './service';

type Target = { containerId: string; port: number; route: ProxyRoute };

/** The edge's header with the client's address (agent/internal/edge: ClientHeader); trusted on the edge's socket only. */
const EDGE_CLIENT = 'x-boxdesk-edge-client';

/** What the edge learns from the Node proxy: hosts it routed, and the boxes' addresses it dialed. */
export interface ProxyObserver {
  routed(host: string, route: ProxyRoute): void;
  dialed(containerId: string, port: number, address: string): void;
}
type Refusal = { status: number; message: string; headers?: Record<string, string> };

/**
 * The reverse proxy of published boxes: its own loopback listener, routing by
 * Host to the box's port through the engine driver's connections. Bodies
 * stream both ways; WebSocket (and any other) upgrades are piped.
 */
/** How long the Node proxy's listener beside a restarted edge still accepts before it closes. */
const FALLBACK_DRAIN_MS = 2000;

export class PreviewProxy implements Disposable {
  private readonly server: http.Server;
  private readonly proxy = new ProxyServer({ ws: true, xfwd: false, proxyTimeout: 0 });
  private readonly agent: BoxAgent;
  private readonly upgraded = new Set<Duplex>();
  /** The public port served from here when the edge has gone (net.Server handing sockets to `server`). */
  private fallback: net.Server | null = null;
  /** Fallback listeners about to close (closeFallback). */
  private readonly draining = new Set<net.Server>();
  private observer: ProxyObserver | null = null;

  constructor(
    private readonly publishing: PublishingService,
    private readonly access: PreviewAuth,
    private readonly engine: ContainerEngine,
    private readonly log: FastifyBaseLogger,
    private readonly traffic: ProxyTraffic,
    timeouts: UpstreamTimeouts,
  ) {
    this.agent = new BoxAgent(engine, timeouts, (containerId, port, address) =>
      this.observer?.dialed(containerId, port, address),
    );
    // No limit on how long a request body may take: a large upload to a box is fine on loopback.
    this.server = http.createServer({ requestTimeout: 0 }, (req, res) => this.onRequest(req, res));
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.onUpgrade(req, socket, head),
    );
    this.server.on('clientError', (_err, socket: Duplex) =>
      refuseUpgrade(socket, 400, 'the request could not be parsed'),
    );
    // Errors without a callback (after a response began) must not crash the core.
    this.proxy.on('error', (err) => this.log.debug({ err }, 'preview proxy stream error'));
  }

  observe(observer: ProxyObserver): void {
    this.observer = observer;
  }

  async listen(host: string, port: number): Promise<number> {
    return listenOn(this.server, host, port);
  }

  /** Behind the edge: a unix socket (0600) only the edge talks to. */
  async listenSocket(file: string): Promise<void> {
    fs.rmSync(file, { force: true });
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ path: file }, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    fs.chmodSync(file, 0o600);
  }

  /**
   * The edge has gone: the public port is served from here again (the same server, its sockets
   * handed over). With `shared`, the port is bound with SO_REUSEPORT, so that an edge started
   * again can bind it beside this listener before this one closes: the port never refuses.
   */
  async serveFallback(host: string, port: number, shared = false): Promise<number> {
    const fallback = net.createServer({ noDelay: true }, (socket) => this.server.emit('connection', socket));
    const got = await listenOn(fallback, host, port, shared);
    this.fallback?.close();
    this.fallback = fallback;
    return got;
  }

  /**
   * An edge serves the port again: this listener closes (connections it took are served to their
   * end). Not at once: a listener that closes resets the connections queued on it, so it first
   * accepts what came before the edge steered every new connection to itself (agent/internal/edge,
   * steerToSelf).
   */
  closeFallback(): void {
    const fallback = this.fallback;
    this.fallback = null;
    if (!fallback) return;
    this.draining.add(fallback);
    setTimeout(() => {
      this.draining.delete(fallback);
      fallback.close();
    }, FALLBACK_DRAIN_MS).unref();
  }

  /** Routes and checks access: the box's target, a refusal to answer, or (a page's ?token=) a redirect. */
  private admit(
    req: IncomingMessage,
    upgrade: boolean,
  ): { target: Target } | { refusal: Refusal } | { redirect: Refusal } {
    const edgeClient = req.headers[EDGE_CLIENT];
    delete req.headers[EDGE_CLIENT];
    const row = this.publishing.route(req.headers.host);
    if (!row)
      return {
        refusal: {
          status: 404,
          message: `nothing is published at "${req.headers.host ?? ''}"; publish a box with: box publish NAME --port N`,
        },
      };
    const access = this.access.check(req, row, upgrade);
    if (access.kind === 'deny') return { refusal: { status: access.status, message: access.message } };
    if (access.kind === 'redirect')
      return {
        redirect: {
          status: 302,
          message: access.cookie ? 'signed in' : 'the same page, without the Boxdesk token in its address',
          headers: { location: access.location, ...(access.cookie ? { 'set-cookie': access.cookie } : {}) },
        },
      };
    const down = unreachable(row);
    if (down) return { refusal: { status: 502, message: down } };
    // Only the edge reaches the unix socket (0600); a TCP client's copy of its header was dropped above.
    const fromEdge = (req.socket as Socket).remoteAddress === undefined && typeof edgeClient === 'string';
    setForwardedHeaders(req, fromEdge ? edgeClient : undefined);
    if (!upgrade) this.observer?.routed(req.headers.host ?? '', row);
    return { target: { containerId: row.container_id!, port: row.port!, route: row } };
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const verdict = this.admit(req, false);
    if ('refusal' in verdict) return sendPage(res, verdict.refusal.status, verdict.refusal.message);
    if ('redirect' in verdict) return sendPage(res, 302, verdict.redirect.message, verdict.redirect.headers);
    const { containerId, port, route } = verdict.target;
    // Counted until the answer is sent (or the client goes): a deployment drains the color it replaces.
    res.once('close', this.traffic.begin(containerId));
    const forward = () =>
      this.proxy.web(req, res, { target: { host: containerId, port }, agent: this.agent }, (err) => {
        sendPage(res, failureStatus(err), this.explain(err, port));
      });
    if (route.status !== 'paused' && !route.wake) {
      void this.publishing.admitToBox(route);
      return forward();
    }
    // A paused box (or a service's sleeping box) wakes first: the request waits for it, its body unread meanwhile.
    this.publishing.admitToBox(route).then(forward, (err: Error) => sendPage(res, 503, this.wakeFailed(route, err)));
  }

  private wakeFailed(route: ProxyRoute, err: Error): string {
    return `box "${route.name}" is paused and could not be woken (${err.message}); try again, or resume it (box resume ${route.name})`;
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.upgraded.add(socket);
    socket.once('close', () => this.upgraded.delete(socket));
    const verdict = this.admit(req, true);
    if ('refusal' in verdict) return refuseUpgrade(socket, verdict.refusal.status, verdict.refusal.message);
    // PreviewAuth never redirects an upgrade (a WebSocket cannot follow one); this is for the type.
    if ('redirect' in verdict) return refuseUpgrade(socket, 401, 'sign in first');
    const { containerId, port, route } = verdict.target;
    // Open, it keeps the box in use; a paused box wakes before the upgrade goes on.
    socket.once('close', this.publishing.holdBox(route));
    const forward = () =>
      this.proxy.ws(req, socket, head, { target: { host: containerId, port }, agent: this.agent }, (err) => {
        refuseUpgrade(socket, failureStatus(err), this.explain(err, port));
      });
    this.publishing
      .admitToBox(route)
      .then(forward, (err: Error) => refuseUpgrade(socket, 503, this.wakeFailed(route, err)));
  }

  /** What the 502 or 504 page says: what happened, and what to change. */
  private explain(err: Error, port: number): string {
    if (err instanceof ListenerError || err instanceof UpstreamTimeoutError) return err.message;
    if (!(err instanceof EngineError)) return `the box's server on port ${port} broke the connection (${err.message})`;
    if (err.kind === 'conflict')
      return `the box is not running, so nothing answers on port ${port}; resume it (box resume NAME)`;
    return `the box's port ${port} cannot be reached: ${err.message}`;
  }

  async dispose(): Promise<void> {
    this.fallback?.close();
    for (const listener of this.draining) listener.close();
    this.draining.clear();
    for (const socket of this.upgraded) socket.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.agent.destroy();
  }
}

/** 504 when the box took too long, 502 for anything else that went wrong on its side. */
function failureStatus(err: Error): number {
  return err instanceof UpstreamTimeoutError ? 504 : 502;
}

function unreachable(row: ProxyRoute): string | null {
  if (row.unavailable) return row.unavailable;
  if ((row.status !== 'running' && row.status !== 'paused' && !row.wake) || !row.container_id) {
    return `box "${row.name}" is ${row.status}${row.status_reason ? ` (${row.status_reason})` : ''}; it answers once it runs (box resume ${row.name})`;
  }
  if (row.port === null)
    return `box "${row.name}" has no port; publish it again with one (box publish ${row.name} --port N)`;
  return null;
}

/** We are the first proxy: what the client sent as X-Forwarded-* is not to be trusted, so it is replaced. */
function setForwardedHeaders(req: IncomingMessage, client: string | undefined): void {
  const socket = req.socket as Socket;
  req.headers['x-forwarded-for'] = client ?? socket.remoteAddress ?? '127.0.0.1';
  req.headers['x-forwarded-proto'] = 'http';
  req.headers['x-forwarded-host'] = req.headers.host ?? '';
  delete req.headers['x-forwarded-port'];
  delete req.headers.forwarded;
}

function listenOn(server: net.Server, host: string, port: number, reusePort = false): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          err.code === 'EADDRINUSE'
            ? `the preview proxy's port ${port} is in use; choose another with --proxy-port (0 picks a free one)`
            : err.message,
        ),
      );
    server.once('error', onError);
    // reusePort (Node ≥ 22.12, Linux) is not in @types/node yet.
    const options: net.ListenOptions = reusePort ? ({ host, port, reusePort } as net.ListenOptions) : { host, port };
    server.listen(options, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
