import type { FastifyBaseLogger } from 'fastify';
import fs from 'node:fs';
import path from 'node:path';
import { secretEnvName } from '../../../shared/schemas/secrets';
import type { ContainerEngine } from '../engine/container-engine';
import type { SecretsPort } from '../secrets/port';
import type { BoxNetworking, EgressHook, NetworkedBox } from './box-networking';
import { proxyPermits, usesProxy } from './egress-policy';
import { EgressProxy, type ProxyBox } from './egress-proxy';
import type { EgressResolver } from './egress-resolver';

/** Where the box sees its agent directory (engine/agent/hub.ts), and the CA's files in it. */
const RUN_IN_BOX = '/.boxdesk/run';
const CA_FILE = 'egress-ca.pem';
const BUNDLE_FILE = 'egress-ca-bundle.pem';

/** The egress proxy's port at each project network's gateway unless BOXDESK_EGRESS_PORT says otherwise. */
export const DEFAULT_EGRESS_PORT = 7479;

export interface BoxEgressDeps {
  engine: ContainerEngine;
  networking: BoxNetworking;
  secrets: SecretsPort;
  resolver: EgressResolver;
  port: number;
  /** The box's agent directory on the host (mounted read-only at /.boxdesk/run); null: the box has none. */
  boxDir(boxId: string): string | null;
  /** The box of an id as it is now (its network and secrets), or undefined. */
  byId(boxId: string): NetworkedBox | undefined;
  running: () => { box: NetworkedBox; containerId: string }[];
  /** The names of the project's boxes (reached directly by name, never through the proxy). */
  peers(project: string): string[];
  log: FastifyBaseLogger;
}

/**
 * The egress proxy as boxes use it: each box that has secrets or an allow list gets the proxy
 * listening at its network's gateway, the CA's certificate in its agent directory, and, in the
 * environment of its commands, HTTP(S)_PROXY, the CA variables and its secrets' placeholders.
 * The proxy knows boxes by their addresses on their project networks.
 */
export class BoxEgress implements EgressHook {
  readonly proxy: EgressProxy;
  /** Box ids by their addresses (filled as boxes start; looked up again on a miss). */
  private readonly boxes = new Map<string, string>();
  private host: { at: number; addresses: Promise<string[]> } | null = null;

  constructor(private readonly deps: BoxEgressDeps) {
    this.proxy = new EgressProxy({
      port: deps.port,
      resolver: deps.resolver,
      ca: () => deps.secrets.egressCa(),
      boxAt: (address) => this.boxAt(address),
      permits: async (box, host, address, port) =>
        proxyPermits({
          ...{ network: box.network, host, address, port },
          hostAddresses: await this.hostAddresses(),
          pool: deps.networking.pool,
        }),
      log: deps.log,
    });
    deps.networking.useEgress(this);
  }

  /** The host's addresses, read at most every 5 s (the packet filter reads them at each change). */
  private hostAddresses(): Promise<string[]> {
    if (!this.host || Date.now() - this.host.at > 5_000)
      this.host = { at: Date.now(), addresses: this.deps.networking.hostAddresses() };
    return this.host.addresses;
  }

  /**
   * The box runs on its network: its address is noted, and for a box that uses the proxy, the
   * proxy listens at its gateway and its CA files are in place. A failure leaves the box running
   * without the proxy (its requests through it fail; no value goes anywhere), and is logged.
   */
  async ready(box: NetworkedBox, containerId: string): Promise<void> {
    await this.prepare(box, containerId).catch((err: unknown) =>
      this.deps.log.warn({ err, box: box.name }, "the egress proxy could not take a box's requests"),
    );
  }

  private async prepare(box: NetworkedBox, containerId: string): Promise<void> {
    // Every box's address is noted, so one that takes over a stopped box's address is never taken for it.
    const state = await this.deps.engine.inspectContainer(containerId);
    for (const address of state?.addresses ?? []) this.boxes.set(address, box.id);
    if (!usesProxy(box)) return;
    const own = await this.deps.networking.ensure(box.project);
    if (own) await this.proxy.listen(own.gateway);
    const dir = this.deps.boxDir(box.id);
    if (dir && fs.existsSync(dir)) {
      const ca = this.deps.secrets.egressCa();
      fs.writeFileSync(path.join(dir, CA_FILE), ca.certPem, { mode: 0o644 });
      fs.writeFileSync(path.join(dir, BUNDLE_FILE), ca.bundlePem(), { mode: 0o644 });
    }
  }

  released(gateway: string): Promise<void> {
    return this.proxy.unlisten(gateway);
  }

  /** Running boxes that use the proxy, after a core start: it listens for them again. */
  async resume(): Promise<void> {
    for (const { box, containerId } of this.deps.running()) await this.ready(box, containerId);
  }

  /**
   * What a command in the box gets in its environment (under the box's own): the proxy and CA
   * variables and a placeholder for each secret, for a box that uses the proxy; else nothing.
   */
  async environment(
    box: NetworkedBox,
  ): Promise<{ proxy: Record<string, string>; placeholders: Record<string, string> }> {
    const env: Record<string, string> = {};
    const placeholders: Record<string, string> = {};
    if (!usesProxy(box)) return { proxy: env, placeholders };
    const own = await this.deps.networking.ensure(box.project).catch(() => null);
    if (own) {
      const proxy = `http://${own.gateway}:${this.deps.port}`;
      // The project's boxes by name and address go direct: the proxy does not resolve box names.
      const noProxy = ['localhost', '127.0.0.1', '::1', own.subnet, ...this.deps.peers(box.project)].join(',');
      Object.assign(env, { HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy });
      Object.assign(env, { NO_PROXY: noProxy, no_proxy: noProxy });
      // Node's own fetch and http follow the variables only when told to (Node 24).
      env.NODE_USE_ENV_PROXY = '1';
    }
    if (this.deps.boxDir(box.id)) {
      const bundle = `${RUN_IN_BOX}/${BUNDLE_FILE}`;
      Object.assign(env, { SSL_CERT_FILE: bundle, REQUESTS_CA_BUNDLE: bundle, CURL_CA_BUNDLE: bundle });
      env.NODE_EXTRA_CA_CERTS = `${RUN_IN_BOX}/${CA_FILE}`;
    }
    for (const secret of this.deps.secrets.resolve(box.secrets))
      placeholders[secretEnvName(secret.name)] = secret.placeholder;
    return { proxy: env, placeholders };
  }

  private async boxAt(address: string): Promise<ProxyBox | null> {
    let id = this.boxes.get(address);
    if (!id) {
      // A box started before this core (or moved since): its address is asked of the engine.
      for (const { box, containerId } of this.deps.running()) {
        const state = await this.deps.engine.inspectContainer(containerId).catch(() => null);
        for (const a of state?.addresses ?? []) this.boxes.set(a, box.id);
      }
      id = this.boxes.get(address);
    }
    const running = id !== undefined && this.deps.running().some((r) => r.box.id === id);
    const box = running ? this.deps.byId(id!) : undefined;
    if (!box || !usesProxy(box)) return null;
    return { id: box.id, network: box.network, secrets: this.deps.secrets.resolve(box.secrets) };
  }

  close(): Promise<void> {
    return this.proxy.close();
  }
}
