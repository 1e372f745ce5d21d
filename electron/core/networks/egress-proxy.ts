import type { FastifyBaseLogger } from 'fastify';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { ResolvedNetwork } from '../../../shared/schemas/network';
import type { EgressCertificates } from '../secrets/port';
import { injectHeaders, replacePlaceholders, secretsFor, type InjectedSecret } from './secret-injection';
import type { EgressResolver } from './egress-resolver';

/** What the proxy knows of a box that connects to it. */
export interface ProxyBox {
  id: string;
  network: ResolvedNetwork;
  secrets: InjectedSecret[];
}

/** One connection the proxy made or refused for a box (the egress log's entry; its bytes both ways). */
export interface EgressConnection {
  at: string;
  box_id: string;
  host: string;
  port: number;
  allowed: boolean;
  bytes: number;
}

export interface EgressProxyDeps {
  /** The port it listens on, at each project network's gateway. */
  port: number;
  resolver: EgressResolver;
  /** The installation's CA (made at first use). */
  ca: () => EgressCertificates;
  /** The box whose address on its project's network is `address`; null: none of this core's. */
  boxAt(address: string): Promise<ProxyBox | null>;
  /** Whether the box may reach `address`:`port` for the name `host`: its policy, the host and other projects closed. */
  permits(box: ProxyBox, host: string, address: string, port: number): Promise<boolean>;
  log: FastifyBaseLogger;
}

/** Hop-by-hop and proxy headers, which are the proxy's and never go on. */
const HOP = new Set(['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive', 'te', 'upgrade']);

interface Target {
  box: ProxyBox;
  host: string;
  port: number;
  address: string;
}

function withoutHop(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (!HOP.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  return out;
}

/** A lookup that answers `address` whatever the name (the proxy resolved it and checked it first). */
function fixedLookup(address: string): net.LookupFunction {
  return ((_name: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family: 4 }]);
    else callback(null, address, 4);
  }) as unknown as net.LookupFunction;
}

/**
 * Boxdesk's egress proxy (docs/security.md, "Secrets"): an HTTP proxy (absolute-form requests and
 * CONNECT) listening at each project network's gateway, for the boxes there that have secrets or
 * an allow list. It knows a box by its address, holds it to its egress policy (and keeps the host
 * and other projects closed, as its packet filter does), and for a host of the box's secrets
 * terminates TLS with a leaf of the installation's CA, replaces the secrets' placeholders in the
 * request line and headers and adds their header where it is absent. Anything else passes as it is
 * (CONNECT: a plain tunnel). Each connection is reported to `onConnection` listeners.
 */
export class EgressProxy {
  private readonly servers = new Map<string, Promise<http.Server>>();
  private readonly listeners = new Set<(c: EgressConnection) => void>();
  /** Decrypted requests of the CONNECTs it terminates, by their TLS socket. */
  private readonly tunnels = new WeakMap<object, Target>();
  /** The box of each client connection, as first asked. */
  private readonly clients = new WeakMap<net.Socket, Promise<ProxyBox | null>>();
  private readonly inner = http.createServer((req, res) => void this.decrypted(req, res));
  private readonly agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

  constructor(private readonly deps: EgressProxyDeps) {}

  get port(): number {
    return this.deps.port;
  }

  /** Calls `listener` with each connection as it ends; returns its removal. */
  onConnection(listener: (c: EgressConnection) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Listens at `address` (a project network's gateway, present on the host once a box is on it) unless it does. */
  listen(address: string): Promise<void> {
    let server = this.servers.get(address);
    if (!server) {
      server = this.open(address);
      this.servers.set(address, server);
      server.catch(() => this.servers.delete(address));
    }
    return server.then(() => undefined);
  }

  /** Stops listening at `address` (its network is gone); connections open there end. */
  async unlisten(address: string): Promise<void> {
    const server = await this.servers.get(address)?.catch(() => null);
    this.servers.delete(address);
    server?.closeAllConnections();
    server?.close();
  }

  private async open(address: string): Promise<http.Server> {
    const server = http.createServer((req, res) => void this.plain(req, res));
    server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      void this.connect(req, socket, head);
    });
    server.on('clientError', (_err, socket) => socket.destroy());
    for (let attempt = 0; ; attempt++) {
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(this.deps.port, address, () => {
            server.off('error', reject);
            resolve();
          });
        });
        return server;
      } catch (err) {
        // The bridge's address comes with its first container: a moment after its start.
        if ((err as NodeJS.ErrnoException).code !== 'EADDRNOTAVAIL' || attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  async close(): Promise<void> {
    const servers = [...this.servers.values()];
    this.servers.clear();
    for (const s of servers) {
      const server = await s.catch(() => null);
      server?.closeAllConnections();
      server?.close();
    }
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private report(target: Omit<Target, 'address' | 'box'> & { box: string }, allowed: boolean, bytes: number): void {
    const entry = { at: new Date().toISOString(), box_id: target.box, host: target.host, port: target.port };
    for (const listener of this.listeners) {
      try {
        listener({ ...entry, allowed, bytes });
      } catch (err) {
        this.deps.log.warn({ err }, 'an egress connection listener failed');
      }
    }
  }

  /**
   * The box a client connection comes from, asked once per connection: a box's settings apply to
   * its next connection, as its packet filter's do.
   */
  private boxOf(socket: net.Socket, from: string | undefined): Promise<ProxyBox | null> {
    let box = this.clients.get(socket);
    if (!box) {
      box = from ? this.deps.boxAt(from.replace(/^::ffff:/, '')) : Promise.resolve(null);
      this.clients.set(socket, box);
    }
    return box;
  }

  /** The box connecting and where it may go; null (answered already by `refuse`) when it may not. */
  private async target(
    socket: net.Socket,
    from: string | undefined,
    host: string,
    port: number,
    refuse: (status: number, message: string) => void,
  ): Promise<Target | null> {
    const box = await this.boxOf(socket, from);
    if (!box) {
      refuse(403, 'this proxy serves Boxdesk boxes only');
      return null;
    }
    const addresses = await this.deps.resolver.resolve(host);
    for (const address of addresses)
      if (await this.deps.permits(box, host, address, port)) return { box, host, port, address };
    this.report({ box: box.id, host, port }, false, 0);
    refuse(
      addresses.length ? 403 : 502,
      addresses.length
        ? `the box's egress policy does not allow ${host}:${port}`
        : `${host} did not resolve to an IPv4 address`,
    );
    return null;
  }

  /** An absent-form request (http://host/path): forwarded, secrets put in for their hosts. */
  private async plain(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const refuse = (status: number, message: string) => void res.writeHead(status).end(`Boxdesk egress: ${message}\n`);
    let url: URL;
    try {
      url = new URL(req.url ?? '');
      if (url.protocol !== 'http:') throw new Error('not http');
    } catch {
      return refuse(400, 'send absolute http:// URLs, or CONNECT for https');
    }
    const target = await this.target(
      req.socket,
      req.socket.remoteAddress,
      url.hostname,
      Number(url.port || 80),
      refuse,
    );
    if (target) this.forward(req, res, target, `${url.pathname}${url.search}`, false);
  }

  /** A request inside a CONNECT the proxy terminated (a host of the box's secrets). */
  private decrypted(req: http.IncomingMessage, res: http.ServerResponse): void {
    const target = this.tunnels.get(req.socket);
    if (!target) return void res.writeHead(500).end();
    this.forward(req, res, target, req.url ?? '/', true);
  }

  private forward(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    target: Target,
    path: string,
    secure: boolean,
  ): void {
    const secrets = secretsFor(target.box.secrets, target.host);
    let bytes = 0;
    const upstream = (secure ? https : http).request(
      {
        host: target.host,
        port: target.port,
        method: req.method,
        path: replacePlaceholders(path, secrets),
        headers: injectHeaders(withoutHop(req.rawHeaders), secrets).flat(),
        lookup: fixedLookup(target.address),
        agent: secure ? this.agents.https : this.agents.http,
        ...(secure ? { servername: target.host } : {}),
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, withoutHop(answer.rawHeaders));
        answer.on('data', (chunk: Buffer) => (bytes += chunk.length));
        answer.pipe(res);
        answer.on('end', () => {
          if (!secure) this.report({ ...target, box: target.box.id }, true, bytes);
        });
      },
    );
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    upstream.on('error', (err) => {
      this.deps.log.debug({ err: err.message, host: target.host }, 'egress upstream failed');
      if (!res.headersSent)
        res.writeHead(502).end(`Boxdesk egress: ${target.host}:${target.port} failed: ${err.message}\n`);
      else res.destroy();
    });
    req.pipe(upstream);
  }

  private async connect(req: http.IncomingMessage, socket: net.Socket, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(req.url ?? '');
    const refuse = (status: number, message: string) =>
      void socket.end(
        `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nconnection: close\r\n\r\nBoxdesk egress: ${message}\n`,
      );
    if (!m) return refuse(400, 'CONNECT takes host:port');
    const target = await this.target(socket, socket.remoteAddress, m[1]!.toLowerCase(), Number(m[2]), refuse);
    if (!target) return;
    socket.on('close', () =>
      this.report({ ...target, box: target.box.id }, true, socket.bytesRead + socket.bytesWritten),
    );
    if (secretsFor(target.box.secrets, target.host).length) {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) socket.unshift(head);
      const secure = new tls.TLSSocket(socket, {
        isServer: true,
        secureContext: this.deps.ca().contextFor(target.host),
      });
      secure.on('error', () => socket.destroy());
      this.tunnels.set(secure, target);
      this.inner.emit('connection', secure);
      return;
    }
    const upstream = net.connect({ host: target.address, port: target.port });
    upstream.on('error', (err) => {
      if (!socket.writableEnded && upstream.bytesRead === 0)
        refuse(502, `${target.host}:${target.port}: ${err.message}`);
      socket.destroy();
    });
    upstream.on('connect', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    socket.on('close', () => upstream.destroy());
  }
}
