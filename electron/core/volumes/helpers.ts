import { ApiError } from '../../../shared/errors';
import type { ContainerEngine, VolumeMount } from '../engine/container-engine';
import { helperLabels, helperSpec, runToEnd } from '../engine/helper-containers';
import { randomBase32 } from '../ids';

/** What a helper container carries: never a box's labels (the reconciler would claim it), always its role. */
export const HELPER_ROLE = 'volume-helper';
export const VOLUME_ROLES = { volume: 'volume', snapshot: 'volume-snapshot' } as const;

/**
 * Copies `/src` into `/dst` (both volume mounts), copy-on-write where the
 * filesystem and the image's cp can (`--reflink=always` is tried on a probe
 * file first, so the answer is honest), a full `cp -a` otherwise. Prints the
 * method and the bytes copied.
 */
export const COPY_SCRIPT = [
  'set -e',
  'cd /dst',
  'find /dst -mindepth 1 -maxdepth 1 -exec rm -rf {} +',
  'method=copy',
  'echo probe > /dst/.boxdesk-probe',
  'if cp --reflink=always /dst/.boxdesk-probe /dst/.boxdesk-probe2 2>/dev/null; then method=reflink; fi',
  'rm -f /dst/.boxdesk-probe /dst/.boxdesk-probe2',
  'if [ "$method" = reflink ]; then cp -a --reflink=always /src/. /dst/; else cp -a /src/. /dst/; fi',
  'echo "$method $(du -sb /dst | cut -f1)"',
].join('\n');

/** Prints the bytes in /dst. */
export const MEASURE_SCRIPT = 'du -sb /dst | cut -f1';

/**
 * Short-lived helper containers that work on volumes: run from the default
 * base's image, labelled with the instance and HELPER_ROLE, and removed before
 * the call returns (the start-time recovery removes any a crash left).
 */
export class VolumeHelpers {
  constructor(
    private readonly engine: ContainerEngine,
    private readonly instanceId: string,
    private readonly image: () => Promise<string>,
  ) {}

  private async create(owner: string, mounts: VolumeMount[], command: string[]): Promise<string> {
    return this.engine.createContainer(
      helperSpec({
        name: `boxdesk-volume-helper-${owner.replace(/[^a-zA-Z0-9_.-]/g, '-')}-${randomBase32(6)}`,
        image: await this.image(),
        command,
        hostname: 'volume-helper',
        labels: helperLabels(this.instanceId, HELPER_ROLE, { 'boxdesk.owner': owner }),
        mounts,
      }),
    );
  }

  /** Runs a shell script in a helper; answers its stdout, or throws with its output when it fails. */
  async run(owner: string, mounts: VolumeMount[], script: string): Promise<string> {
    const id = await this.create(owner, mounts, ['/bin/sh', '-c', script]);
    const { code, output } = await runToEnd(this.engine, id);
    if (code !== 0)
      throw new ApiError('internal', `a volume helper container failed (exit ${code}): ${output.trim().slice(-500)}`);
    return output;
  }

  /** A created, never started helper (no process): the engine's archive calls reach its volume mounts. */
  async withStopped<T>(owner: string, mounts: VolumeMount[], work: (containerId: string) => Promise<T>): Promise<T> {
    const id = await this.create(owner, mounts, ['/bin/true']);
    try {
      return await work(id);
    } finally {
      await this.engine.removeContainer(id).catch(() => undefined);
    }
  }

  /** Removes helpers a crash left behind. */
  async removeLeftovers(): Promise<number> {
    const left = await this.engine.listContainers({ 'boxdesk.instance': this.instanceId, 'boxdesk.role': HELPER_ROLE });
    for (const c of left) await this.engine.removeContainer(c.id);
    return left.length;
  }
}
