import path from 'node:path';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';
import { EngineError, type ContainerEngine } from '../engine/container-engine';
import { helperLabels, helperSpec, runToEnd } from '../engine/helper-containers';
import { randomBase32 } from '../ids';
import type { NetfilterFiles } from './netfilter-files';

export const NETFILTER_ROLE = 'netfilter-helper';
/** Not `boxdesk.instance`: images with that label that no box names are collected at start. */
const IMAGE_LABELS = { role: 'boxdesk.role', digest: 'boxdesk.netfilter' };
const RULES_FILE = 'rules';

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

  constructor(
    private readonly engine: ContainerEngine,
    private readonly instanceId: string,
    private readonly files: NetfilterFiles,
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
    const id = await this.engine.createContainer(
      helperSpec({
        name: `boxdesk-netfilter-${containerId.slice(0, 12)}-${randomBase32(4)}`,
        image: await this.image(),
        command: [this.files.binary, 'iptables-restore', `/${RULES_FILE}`],
        hostname: 'boxdesk-netfilter',
        labels: helperLabels(this.instanceId, NETFILTER_ROLE),
        limits: { cpus: 1, ramMb: 64, pidsLimit: 16 },
        helper: {
          capAdd: ['NET_ADMIN'],
          devices: [],
          binds: [],
          noNetwork: false,
          noAppArmor: false,
          networkOf: containerId,
        },
      }),
    );
    try {
      await this.engine.putArchive(id, '/', tarOf([{ path: RULES_FILE, data: Buffer.from(rules), mode: 0o644 }]));
    } catch (err) {
      await this.engine.removeContainer(id).catch(() => undefined);
      throw err;
    }
    const { code, output } = await runToEnd(this.engine, id);
    if (code !== 0)
      throw new EngineError('failed', `the box's network rules could not be set (iptables-restore: ${output.trim()})`);
  }
}
