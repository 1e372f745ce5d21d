import { ApiError } from '../../../shared/errors';
import type { Box } from '../../../shared/schemas/box';
import type { PublishRequest, SignInLink } from '../../../shared/schemas/publishing';
import { assertTransition, toBox, type BoxRow, type BoxesPort } from '../boxes/port';
import type { EventBus } from '../events/event-bus';
import { ProjectScopedError } from '../http/project-scoped-error';
import { now } from '../ids';
import {
  checkDomains,
  hostnameOf,
  isPreviewHostname,
  portHostname,
  previewCandidates,
  previewUrl,
} from './published-hosts';
import { SIGN_IN_PARAM, type SignInLinks, type SignInTarget } from './sign-in-links';

export interface PublishingDeps {
  boxes: Pick<BoxesPort, 'find' | 'byId' | 'withLock' | 'published' | 'wake' | 'touch' | 'use'>;
  bus: EventBus;
  links: SignInLinks;
}

/**
 * What the proxy needs of a host's target: a published box, or a service's
 * live box under the service's name, URL and auth (services/).
 */
export type ProxyRoute = Pick<
  BoxRow,
  'name' | 'project' | 'status' | 'status_reason' | 'container_id' | 'port' | 'url' | 'url_auth'
> & {
  /** The box that answers (its id: a request is a use of it; a paused one is woken first). */
  box?: Pick<BoxRow, 'id' | 'project' | 'name' | 'status'>;
  /** Wakes what answers before the request goes on (a service's live box, paused or stopped: services/). */
  wake?: () => Promise<void>;
  /** Why nothing can answer (a service with no live box): a 502 saying so. */
  unavailable?: string;
  /** A service's route: a deployment drains its requests (ProxyTraffic), so only the Node proxy carries them. */
  service?: true;
};

/** The route of the service `name` of `project`, or null when there is no such service. */
export type ServiceRoutes = (project: string, name: string) => ProxyRoute | null;

/** Publishing rules: which box a host names, and publish/unpublish. Knows nothing of HTTP. */
export class PublishingService {
  private proxyPort = 0;
  /**
   * Host → the box it routes to, as of the last state change. Every change to
   * a box (publish, update, status, delete) is an event, and any event clears
   * the table, so a port change or an unpublish applies to the next request.
   */
  private readonly routes = new Map<string, ProxyRoute | null>();
  private services: ServiceRoutes = () => null;
  private readonly unsubscribe: () => void;
  /** The boxes' published state (BoxesPort.published: the boxes table is theirs). */
  private readonly store: BoxesPort['published'];
  /** Awaited after a publish or unpublish is recorded, before it is answered (the proxy's edge takes it first). */
  private readonly routeChanged: ((boxId: string) => Promise<void>)[] = [];

  constructor(private readonly deps: PublishingDeps) {
    this.store = deps.boxes.published;
    this.unsubscribe = deps.bus.subscribe(() => this.routes.clear());
  }

  dispose(): void {
    this.unsubscribe();
  }

  /** Called once the proxy listens: URLs carry the port it actually got. */
  setProxyPort(port: number): void {
    this.proxyPort = port;
    this.store.refreshUrls((name, project) => previewUrl(name, project, port));
  }

  /** Services answer on hosts of the box scheme too, ahead of a published box of the same name. */
  routeServices(services: ServiceRoutes): void {
    this.services = services;
    this.routes.clear();
  }

  get port(): number {
    return this.proxyPort;
  }

  publish(project: string, name: string, input: PublishRequest): Promise<Box> {
    return this.deps.boxes.withLock(this.deps.boxes.find(project, name).id, async () => {
      const row = this.deps.boxes.find(project, name);
      assertTransition({ name, status: row.status, hasContainer: row.container_id !== null }, 'update');
      const port = input.port ?? row.port;
      if (port === null || port < 1 || port > 65535) {
        throw new ApiError('invalid_body', `box "${name}" has no port to publish; give one, e.g. {"port": 8080}`, {
          errors: [{ path: 'body.port', message: 'is required while the box has no port' }],
        });
      }
      const domains = input.domains
        ? checkDomains(input.domains)
        : row.published_domains
          ? (JSON.parse(row.published_domains) as string[])
          : [];
      const auth = input.auth ?? row.url_auth ?? 'token';
      const ports = (input.ports ?? (row.published_ports ? (JSON.parse(row.published_ports) as number[]) : [])).filter(
        (p, i, all) => p !== port && all.indexOf(p) === i,
      );
      const clash = this.store.publish(
        row.id,
        { port, url: previewUrl(name, project, this.proxyPort), auth, domains, ports },
        now(),
      );
      if (clash) {
        const { domain, owner } = clash;
        throw new ProjectScopedError(
          'already_exists',
          (sees) =>
            sees(owner.project)
              ? `domain "${domain}" is already published by box "${owner.name}" in project "${owner.project}"; unpublish it there first`
              : `domain "${domain}" is already published by a box in another project; pick another domain`,
          {
            errors: [{ path: `body.domains.${domains.indexOf(clash.domain)}`, message: 'is taken' }],
          },
        );
      }
      const box = toBox(this.deps.boxes.byId(row.id)!);
      this.deps.bus.emit('box.published', { box }, project);
      await this.routeChange(box.id);
      return box;
    });
  }

  /** `listener` is awaited after each publish or unpublish of a box is recorded, before it is answered. */
  afterRouteChange(listener: (boxId: string) => Promise<void>): void {
    this.routeChanged.push(listener);
  }

  private async routeChange(boxId: string): Promise<void> {
    await Promise.all(this.routeChanged.map((listener) => listener(boxId)));
  }

  /** Removes the box's URL and domains; unpublishing a box that is not published changes nothing. */
  unpublish(project: string, name: string): Promise<Box> {
    return this.deps.boxes.withLock(this.deps.boxes.find(project, name).id, async () => {
      const row = this.deps.boxes.find(project, name);
      if (row.url_auth === null) return toBox(row);
      assertTransition({ name, status: row.status, hasContainer: row.container_id !== null }, 'update');
      this.store.unpublish(row.id, now());
      const box = toBox(this.deps.boxes.byId(row.id)!);
      this.deps.bus.emit('box.unpublished', { box }, project);
      await this.routeChange(box.id);
      return box;
    });
  }

  /** A link to the box's URL that signs a browser in once, for the token `tokenId` (see SignInLinks). */
  signInLink(project: string, name: string, tokenId: string, port?: number): SignInLink {
    const row = this.deps.boxes.find(project, name);
    if (!row.url || !row.url_auth)
      throw new ApiError('conflict', `box "${name}" is not published; publish it first: box publish ${name} --port N`);
    if (port === undefined || port === row.port)
      return this.linkFor({ project, name, url: row.url }, row.url_auth, tokenId);
    const ports = row.published_ports ? (JSON.parse(row.published_ports) as number[]) : [];
    if (!ports.includes(port))
      throw new ApiError(
        'conflict',
        `box "${name}" does not publish port ${port}; publish it first: box publish ${name} --also-port ${port}`,
      );
    return this.linkFor({ project, name, url: row.url.replace('://', `://${port}.`) }, row.url_auth, tokenId);
  }

  /** The URL with a one-time code for `target` when it asks for a token; the URL itself when it is public. */
  linkFor(target: SignInTarget, auth: string, tokenId: string): SignInLink {
    if (auth !== 'token') return { url: target.url, expires_at: null };
    const { code, expiresAt } = this.deps.links.mint(tokenId, target);
    return { url: `${target.url}/?${SIGN_IN_PARAM}=${code}`, expires_at: expiresAt.toISOString() };
  }

  /**
   * A proxied request is a use of its box, and a paused box wakes for it (the request waits,
   * bounded by the box's queue); `done` releases a hold (an upgraded socket) when it ends.
   */
  async admitToBox(route: ProxyRoute): Promise<void> {
    if (!route.box) return;
    this.deps.boxes.touch(route.box.id);
    if (!route.wake && route.status !== 'paused') return;
    // Requests waiting for the wake hold the box in use: its idle clocks never put it back to
    // sleep under them (a service's box probed for health a while after it started).
    const release = this.deps.boxes.use(route.box.id);
    try {
      if (route.wake) await route.wake();
      else await this.deps.boxes.wake(route.box);
    } finally {
      release();
    }
  }

  /** An upgraded (WebSocket) connection keeps its box in use while open. */
  holdBox(route: ProxyRoute): () => void {
    return route.box ? this.deps.boxes.use(route.box.id) : () => undefined;
  }

  /** The service or published box a Host header names, or null. */
  route(host: string | undefined): ProxyRoute | null {
    if (!host) return null;
    const hostname = hostnameOf(host);
    const known = this.routes.get(hostname);
    if (known !== undefined) return known;
    const row = this.lookup(hostname);
    if (this.routes.size > 10_000) this.routes.clear(); // random Host headers must not grow it without bound
    this.routes.set(hostname, row);
    return row;
  }

  private lookup(hostname: string): ProxyRoute | null {
    const byPort = portHostname(hostname);
    if (byPort) {
      // {port}.{box}--{project}.localhost: a published box's other port, if it publishes that one.
      for (const { name, project } of previewCandidates(byPort.hostname)) {
        const row = this.store.published(project, name);
        const ports = row?.published_ports ? (JSON.parse(row.published_ports) as number[]) : [];
        if (row && ports.includes(byPort.port)) return { ...row, port: byPort.port, box: row };
      }
      return null;
    }
    for (const { name, project } of previewCandidates(hostname)) {
      const service = this.services(project, name);
      if (service) return service;
      const row = this.store.published(project, name);
      if (row) return { ...row, box: row };
    }
    if (isPreviewHostname(hostname)) return null;
    const row = this.store.byDomain(hostname);
    return row ? { ...row, box: row } : null;
  }

  /** Whether a browser origin is a preview page (a box's host or a published domain): it may never call the API. */
  isPreviewOrigin(origin: string): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    const hostname = hostnameOf(url.host);
    if (isPreviewHostname(hostname)) return true;
    if (this.proxyPort && Number(url.port || (url.protocol === 'https:' ? 443 : 80)) === this.proxyPort) return true;
    return this.store.byDomain(hostname) !== undefined;
  }
}
