import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';
import { EngineError, type ContainerEngine, type ContainerSpec } from '../engine/container-engine';
import { helperLabels, helperSpec } from '../engine/helper-containers';
import { readText } from '../engine/log-tail';
import { randomBase32 } from '../ids';
import type { NetfilterFiles } from './netfilter-files';

export const NETFILTER_ROLE = 'netfilter-helper';

/** A helper made for one change of a box's rules: `run` it once the box runs, or `discard` it. */
export interface PreparedRules {
  run(): Promise<void>;
  discard(): void;
}
/** Not `boxdesk.instance`: images with that label that no box names are collected at start. */
const IMAGE_LABELS = { role: 'boxdesk.role', digest: 'boxdesk.netfilter' };
const RULES_IN_HELPER = '/rules';

function tarOf(entries: { path: string; data: Buffer; mode: number }[]): Readable {
  const pack = tar.pack();
  const dirs = new Set<string>();
  for (const entry of entries) {
    const name = entry.path.replace(/^\//, '');
    for (let dir = path.posix.dirname(name); dir !== '.' && !dirs.has(dir); dir = path.posix.dirname(dir))
      dirs.add(dir);
  }
  for (const dir of [...dirs].sort()) pack.entry({ name: dir, type: 'directory', mode: 0o755, mtime: new Date(0) });
  for (const entry of entries)
    pack.entry({ name: entry.path.replace(/^\//, ''), mode: entry.mode, mtime: new Date(0) }, entry.data);
  pack.finalize();
  return pack as unknown as Readable; // tar-stream's typings predate Readable's newer members
}

/**
 * The packet filter's helper (docs/security.md): for each change, a container made from Debian's
 * iptables alone, in the box's network namespace (`networkOf`) with NET_ADMIN added and nothing
 * else, that loads the box's filter table and exits. The box itself never has NET_ADMIN, so it
 * cannot undo the rules.
 */
export class NetfilterHelper {
  private imageId: Promise<string> | null = null;
  /** Helpers that ended, being removed (only the core's stop waits for that). */
  private readonly removals = new Set<Promise<void>>();

  constructor(
    private readonly engine: ContainerEngine,
    private readonly instanceId: string,
    private readonly files: NetfilterFiles,
    /** Where rules files are written for the helper to read (bound read-only into it): a folder of the data dir. */
    private readonly rulesDir: string,
  ) {}

  /** The helper image for these files, imported once (no registry, no base image). */
  private image(): Promise<string> {
    this.imageId ??= this.importImage().catch((err: unknown) => {
      this.imageId = null;
      throw err;
    });
    return this.imageId;
  }

  private async importImage(): Promise<string> {
    const mine = { [IMAGE_LABELS.role]: NETFILTER_ROLE };
    const existing = await this.engine.listImages(mine);
    const current = existing.find((i) => i.labels[IMAGE_LABELS.digest] === this.files.digest);
    for (const old of existing) if (old !== current) await this.engine.removeImage(old.id).catch(() => undefined);
    if (current) return current.id;
    return this.engine.importImage(tarOf(this.files.files), {
      labels: { ...mine, [IMAGE_LABELS.digest]: this.files.digest },
    });
  }

  /** Replaces the filter table of the running container's network namespace with `rules` (iptables-restore format). */
  async apply(containerId: string, rules: string): Promise<void> {
    await (await this.prepare(containerId, rules)).run();
  }

  /**
   * Makes the helper that will load `rules` into the container's namespace; the container need
   * not run yet (a box's start and its helper's making go side by side), only when `run` is
   * called. The rules reach the helper as a file of the data dir bound read-only (as the store's
   * helper sees the store folder): nothing is copied into it. `discard` drops an unused one.
   */
  async prepare(containerId: string, rules: string): Promise<PreparedRules> {
    const name = `boxdesk-netfilter-${containerId.slice(0, 12)}-${randomBase32(4)}`;
    const file = path.join(this.rulesDir, `${name}.rules`);
    fs.mkdirSync(this.rulesDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, rules, { mode: 0o644 });
    const done = (id: string | null) => {
      fs.rmSync(file, { force: true });
      if (id) this.removeLater(id);
    };
    let id: string;
    try {
      id = await this.engine.createContainer(this.spec(name, await this.image(), containerId, file));
    } catch (err) {
      done(null);
      throw err;
    }
    const run = async () => {
      try {
        await this.engine.startContainer(id);
        const code = await this.engine.waitContainer(id);
        if (code === 0) return;
        const output = (await readText(await this.engine.logs(id, { follow: false }))).trim();
        throw new EngineError('failed', `the box's network rules could not be set (iptables-restore: ${output})`);
      } finally {
        done(id);
      }
    };
    return { run, discard: () => done(id) };
  }

  private spec(name: string, image: string, containerId: string, rulesFile: string): ContainerSpec {
    return helperSpec({
      name,
      image,
      command: [this.files.binary, 'iptables-restore', RULES_IN_HELPER],
      hostname: 'boxdesk-netfilter',
      labels: helperLabels(this.instanceId, NETFILTER_ROLE),
      limits: { cpus: 1, ramMb: 64, pidsLimit: 16 },
      // It joins the box's network namespace (`networkOf`), so it has none of its own.
      offline: false,
      helper: {
        capAdd: ['NET_ADMIN'],
        devices: [],
        binds: [{ hostPath: rulesFile, path: RULES_IN_HELPER, readOnly: true }],
        noAppArmor: false,
        networkOf: containerId,
      },
    });
  }

  /** An ended helper goes in the background: the next box need not wait for its removal. */
  private removeLater(id: string): void {
    const removal: Promise<void> = this.engine
      .removeContainer(id)
      .catch(() => undefined)
      .finally(() => this.removals.delete(removal));
    this.removals.add(removal);
  }

  /** Waits until the helpers that ended are removed. */
  async settle(): Promise<void> {
    await Promise.all([...this.removals]);
  }
}
