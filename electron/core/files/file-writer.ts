import type { FastifyBaseLogger } from 'fastify';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { ApiError } from '../../../shared/errors';
import { KeyedMutex } from '../keyed-mutex';
import { EngineError, type ContainerEngine, type PathStat } from '../engine/container-engine';
import { randomBase32 } from '../ids';
import { baseName, joinBoxPath, parentOf, relativeTo } from './box-path';
import { holdsEntries, packEntries, type PackedEntry } from './tar-entries';
import type { UploadIntent, UploadIntentStore } from './upload-intents';

/** The name an upload's bytes go to beside its target until they are all there. */
export const TEMP_PREFIX = '.boxdesk-upload-';
const DIR_MODE = 0o755;

/** Where one upload goes, as the service worked it out (symlinks resolved, missing parents known). */
export interface WritePlan {
  box: { id: string; project: string; name: string; containerId: string };
  /** The existing directory the archive is extracted into. */
  dir: string;
  /** Directories to create below `dir`, top first. */
  missing: string[];
  /** The file's own path (symlinks resolved). */
  final: string;
  /** The path the client gave, for messages. */
  asked: string;
}

export interface UploadedFile {
  mode: number;
  size: number;
  body: Readable;
}

export interface FileWriterDeps {
  engine: ContainerEngine;
  intents: UploadIntentStore;
  log: FastifyBaseLogger;
}

/** A one-entry tar: `name` becomes a hard link to `target` (both in the directory it is extracted into). */
async function linkArchive(name: string, target: string, mode: number): Promise<Readable> {
  const pack = tar.pack();
  pack.entry({ name, type: 'link', linkname: target, mode });
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return Readable.from([Buffer.concat(chunks)]);
}

/**
 * Writes a file so that nobody ever sees half of it, not even after a crash: the bytes go to a
 * temporary name beside the target (recorded in SQLite before the first byte is sent), and only
 * a complete file replaces the target in one step (the engine's rename; running and stopped boxes
 * alike), in the order their bytes were complete: the last writer wins. What a crash left is
 * removed at start (`clearInterrupted`).
 */
export class FileWriter {
  private readonly links = new KeyedMutex();
  /** Intents of uploads this process is running; the others were cut short by a crash. */
  private readonly running = new Set<string>();

  constructor(private readonly deps: FileWriterDeps) {}

  private get engine(): ContainerEngine {
    return this.deps.engine;
  }

  /** Writes the file and answers its stat as written. */
  async write(plan: WritePlan, file: UploadedFile): Promise<PathStat> {
    const parent = parentOf(plan.final);
    const temp = joinBoxPath(parent, `${TEMP_PREFIX}${randomBase32(16)}`);
    const intent = this.deps.intents.record({
      box_id: plan.box.id,
      project: plan.box.project,
      box: plan.box.name,
      container_id: plan.box.containerId,
      temp_path: temp,
      target: plan.final,
    });
    this.running.add(intent.id);
    try {
      const dirs = plan.missing.map((p) => ({ name: relativeTo(plan.dir, p), mode: DIR_MODE }));
      const entry = { name: relativeTo(plan.dir, temp), mode: file.mode, size: file.size, body: file.body };
      try {
        const id = plan.box.containerId;
        await this.send(id, plan.dir, dirs, entry);
        // The target becomes this very inode: its stat now is the answer, whoever replaces it next.
        const written = await this.engine.statPath(id, temp);
        if (!written) throw new ApiError('internal', `the engine reported "${plan.asked}" written but it is not there`);
        await this.replace(id, temp, plan.final, file.mode);
        this.deps.intents.delete(intent.id);
        return { ...written, name: baseName(plan.final) };
      } catch (err) {
        // A body never read (refused before its first byte was asked for) is left to the HTTP
        // server, which reads it off after the answer; destroying it would cut the client off first.
        if (file.body.readableFlowing !== null) file.body.destroy();
        await this.discard(plan, intent);
        throw refusal(err, 'write', plan.asked);
      }
    } finally {
      this.running.delete(intent.id);
    }
  }

  /**
   * The missing directories and the file's bytes into the box: the bytes as they are where the
   * engine takes a file's body (the box agent), else in a tar with the directories.
   */
  private async send(id: string, dir: string, dirs: PackedEntry[], file: PackedEntry & UploadedFile): Promise<void> {
    if (this.engine.writeFile) {
      if (dirs.length > 0) await this.engine.putArchive(id, dir, packEntries(dirs));
      const path = joinBoxPath(dir, file.name);
      if (await this.engine.writeFile(id, path, file.mode, file.size, file.body)) return;
    }
    await this.engine.putArchive(id, dir, packEntries(dirs, file));
  }

  /** The complete temporary file becomes the target in one step, and its own name goes: the last to finish wins. */
  private async replace(containerId: string, temp: string, final: string, mode: number): Promise<void> {
    if (this.engine.renamePath) return this.engine.renamePath(containerId, temp, final, mode);
    // Without a rename call: a hard link over the target (one archive call), then the temporary name
    // goes. Two links onto one path at once could collide, so they take turns.
    await this.links.run(`${containerId}\0${final}`, async () => {
      const link = await linkArchive(baseName(final), baseName(temp), mode);
      await this.engine.putArchive(containerId, parentOf(final), link);
    });
    await this.engine.removePath(containerId, temp);
  }

  /** Removes the temporary name, if it is there, and then its intent. */
  private async removeTemp(containerId: string, intent: UploadIntent): Promise<void> {
    if (await this.engine.statPath(containerId, intent.temp_path))
      await this.engine.removePath(containerId, intent.temp_path);
    this.deps.intents.delete(intent.id);
  }

  /** After a failed upload: its temporary file goes, and the parents it created if nothing else is in them. */
  private async discard(plan: WritePlan, intent: UploadIntent): Promise<void> {
    const id = plan.box.containerId;
    try {
      await this.removeTemp(id, intent);
      for (const dir of [...plan.missing].reverse()) {
        if (!(await this.engine.statPath(id, dir))) continue;
        if (await holdsEntries(await this.engine.getArchive(id, dir))) break;
        await this.engine.removePath(id, dir);
      }
    } catch (err) {
      this.deps.log.warn({ err, path: intent.temp_path }, 'could not remove what a failed upload left');
    }
  }

  /**
   * Removes the temporary files of uploads a crash cut short (run at start, and whenever the
   * engine comes back). `containerOf` names the box's container now, or null once the box is gone.
   */
  async clearInterrupted(containerOf: (intent: UploadIntent) => string | null): Promise<number> {
    let removed = 0;
    for (const intent of this.deps.intents.list()) {
      if (this.running.has(intent.id)) continue;
      const containerId = containerOf(intent);
      try {
        if (containerId) await this.removeTemp(containerId, intent);
        else this.deps.intents.delete(intent.id);
        removed++;
      } catch (err) {
        if (err instanceof EngineError && err.kind === 'not_found') this.deps.intents.delete(intent.id);
        else this.deps.log.warn({ err, path: intent.temp_path }, 'could not remove an interrupted upload');
      }
    }
    return removed;
  }
}

/**
 * What the box's filesystem refused (a mount point, a read-only mount: the driver's conflict) is a
 * 409 naming the path and what to do; anything else is passed on as it is.
 */
export function refusal(err: unknown, action: 'write' | 'create' | 'delete', path: string): unknown {
  if (!(err instanceof EngineError) || err.kind !== 'conflict') return err;
  const mountAdvice =
    action === 'delete'
      ? "; the engine's own files stay while the box exists, and a volume's mount point goes when the volume is detached"
      : '; write it from inside the running box (box exec), where the mounted file can be changed in place, or detach the volume mounted there';
  const advice = /read-only/.test(err.message)
    ? '; attach the volume without read_only, or use another path'
    : /mount point/.test(err.message)
      ? mountAdvice
      : '';
  return new ApiError('conflict', `cannot ${action} "${path}": ${err.message}${advice}`);
}
