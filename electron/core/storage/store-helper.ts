import type { FastifyBaseLogger } from 'fastify';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';
import type { ContainerEngine, ContainerSpec, HelperPrivileges } from '../engine/container-engine';
import { helperLabels, helperSpec, runToEnd } from '../engine/helper-containers';
import { readText } from '../engine/log-tail';
import { randomBase32 } from '../ids';
import type { AgentFiles } from '../engine/agent/files';
import { IN_HELPER, commandArgv, parseAnswer, type StoreCommand } from './helper-commands';
import { StorageError } from './storage-driver';

export const STORE_HELPER_ROLE = 'store-helper';
/** Not `boxdesk.instance`: images with that label that no box names are collected at start. */
export const HELPER_IMAGE_LABELS = {
  role: 'boxdesk.role',
  instance: 'boxdesk.store-instance',
  digest: 'boxdesk.agent',
};
const READY_WAIT_MS = 15_000;

/** The helper image: the static binary and the empty filesystem, imported as a tar (no registry, no base image). */
function helperTar(files: AgentFiles): Readable {
  const pack = tar.pack();
  // Queued whole: the engine reads the stream only once it is handed over.
  const add = (name: string, file: string, mode: number) =>
    pack.entry({ name, mode, mtime: new Date(0) }, fs.readFileSync(file));
  add(IN_HELPER.binary.slice(1), files.binary, 0o755);
  if (files.emptyFilesystem) add(IN_HELPER.emptyFilesystem.slice(1), files.emptyFilesystem, 0o644);
  for (const dir of ['mnt', 'store', 'tmp']) pack.entry({ name: dir, type: 'directory', mode: 0o755 });
  pack.finalize();
  return pack as unknown as Readable; // tar-stream's typings predate Readable's newer members
}

export interface HelperDeps {
  engine: ContainerEngine;
  instanceId: string;
  files: AgentFiles;
  log: FastifyBaseLogger;
}

/**
 * The store's privileged helper (docs/security.md): one long-lived container per store,
 * made from the helper image, whose main process holds the filesystem (`store hold`); each
 * operation is an exec of one typed command in it. Short setup steps (`prepare`, `release`)
 * run in a container of their own and are removed at once.
 */
export class StoreHelper {
  private containerId: string | null = null;

  constructor(private readonly deps: HelperDeps) {}

  /** The helper image for this build, imported once (older builds' images are removed). */
  async image(): Promise<string> {
    const { engine, instanceId, files } = this.deps;
    const mine = { [HELPER_IMAGE_LABELS.role]: STORE_HELPER_ROLE, [HELPER_IMAGE_LABELS.instance]: instanceId };
    const existing = await engine.listImages(mine);
    const current = existing.find((i) => i.labels[HELPER_IMAGE_LABELS.digest] === files.digest);
    for (const old of existing) if (old !== current) await engine.removeImage(old.id).catch(() => undefined);
    if (current) return current.id;
    return engine.importImage(helperTar(files), {
      labels: { ...mine, [HELPER_IMAGE_LABELS.digest]: files.digest },
    });
  }

  private async spec(name: string, command: string[], privileges: HelperPrivileges): Promise<ContainerSpec> {
    return helperSpec({
      name,
      image: await this.image(),
      command,
      hostname: 'boxdesk-store',
      labels: helperLabels(this.deps.instanceId, STORE_HELPER_ROLE),
      limits: { cpus: 1, ramMb: 256, pidsLimit: 64 },
      graceSeconds: 5,
      helper: privileges,
    });
  }

  /** Runs one command in a container of its own, removed before this returns. */
  async runOnce(cmd: StoreCommand, privileges: HelperPrivileges): Promise<Record<string, unknown>> {
    const { engine } = this.deps;
    const name = `boxdesk-store-${cmd.op}-${this.deps.instanceId}-${randomBase32(6)}`;
    const id = await engine.createContainer(await this.spec(name, commandArgv(cmd, IN_HELPER.loopTop), privileges));
    const { code, output } = await runToEnd(engine, id);
    return parseAnswer(output, '', code);
  }

  /** Starts the long-lived helper (`hold`) and waits until its filesystem answers. */
  async hold(cmd: StoreCommand & { op: 'hold' }, top: string, privileges: HelperPrivileges): Promise<void> {
    const { engine } = this.deps;
    await this.removeLeftovers();
    const name = `boxdesk-store-${this.deps.instanceId}`;
    this.containerId = await engine.createContainer(await this.spec(name, commandArgv(cmd, top), privileges));
    await engine.startContainer(this.containerId);
    const deadline = Date.now() + READY_WAIT_MS;
    for (;;) {
      const state = await engine.inspectContainer(this.containerId);
      if (!state?.running) {
        const output = state ? await readText(await engine.logs(this.containerId, { follow: false })) : '';
        await this.stop();
        parseAnswer(output, '', state?.exitCode ?? 1); // throws the helper's own error
        throw new StorageError('unavailable', 'the store helper stopped as it started');
      }
      try {
        await this.exec({ op: 'info' }, top);
        return;
      } catch (err) {
        if (!(err instanceof StorageError) || err.kind !== 'unavailable' || Date.now() > deadline) throw err;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** One command in the long-lived helper; answers its JSON. */
  async exec(cmd: StoreCommand, top: string): Promise<Record<string, unknown>> {
    const { engine } = this.deps;
    if (!this.containerId) throw new StorageError('unavailable', 'the store helper is not running');
    const execId = await engine.createExec(this.containerId, {
      command: commandArgv(cmd, top),
      env: {},
      tty: false,
      stdin: false,
    });
    const streams = await engine.startExec(execId, { tty: false, stdin: false });
    const [stdout, stderr] = await Promise.all([readText(streams.stdout), readText(streams.stderr)]);
    const state = await engine.inspectExec(execId);
    return parseAnswer(stdout, stderr, state.exitCode ?? 1);
  }

  /** Stops the long-lived helper: it unmounts its filesystem (boxes' own mounts stay). */
  async stop(): Promise<void> {
    const id = this.containerId;
    this.containerId = null;
    if (!id) return;
    await this.deps.engine.stopContainer(id, 5).catch(() => undefined);
    await this.deps.engine.removeContainer(id).catch(() => undefined);
  }

  /** Helpers a crash (or an earlier core) left: each holds nothing worth keeping. */
  async removeLeftovers(): Promise<void> {
    await removeStoreHelpers(this.deps.engine, this.deps.instanceId);
  }
}

/**
 * Removes every store helper container of this core (the long-lived one and short-lived ones
 * a kill -9 cut short). Called as a driver starts, before it runs a helper of its own.
 */
export async function removeStoreHelpers(engine: ContainerEngine, instanceId: string): Promise<void> {
  for (const c of await engine.listContainers({ 'boxdesk.instance': instanceId, 'boxdesk.role': STORE_HELPER_ROLE })) {
    if (c.running) await engine.stopContainer(c.id, 5).catch(() => undefined);
    await engine.removeContainer(c.id).catch(() => undefined);
  }
}
