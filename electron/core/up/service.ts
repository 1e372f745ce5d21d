import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import tar from 'tar-stream';
import type { Readable } from 'node:stream';
import { ApiError } from '../../../shared/errors';
import type { UpChanges, UpDone, UpLine, UpQuery } from '../../../shared/schemas/up';
import type { BoxRow, BoxesPort } from '../boxes/port';
import type { BuildsPort } from '../builds/port';
import type { ContainerEngine } from '../engine/container-engine';
import type { EventBus } from '../events/event-bus';
import type { ExecPort } from '../exec/port';
import type { FilesPort } from '../files/port';
import { now } from '../ids';
import type { PublishingPort } from '../publishing/port';
import { buildBase } from './base-build';
import { commandsOf, planFor, type DevCommand, type UpPlan } from './devcontainer';
import { buildContextTar, spoolFolder, subTar, type UploadedFolder } from './folder-upload';
import type { UpRecord, UpStore } from './store';

export interface UpDeps {
  store: UpStore;
  boxes: Pick<BoxesPort, 'lookup' | 'find' | 'create' | 'resume' | 'awake'>;
  builds: BuildsPort;
  files: FilesPort;
  exec: ExecPort;
  publishing: Pick<PublishingPort, 'publish'>;
  engine: Pick<ContainerEngine, 'putArchive'>;
  bus: EventBus;
  uploadLimit: number;
  /** Where uploads wait while their box is made (each removed when its up ends). */
  spoolDir: string;
}

/** An upload checked and planned, before the answer starts: what `run` makes of it. */
export interface PreparedUp {
  project: string;
  name: string;
  folder: UploadedFolder;
  plan: UpPlan;
  /** The box of that name, made by an earlier up of the folder. */
  existing: { row: BoxRow; record: UpRecord } | null;
  /** The base the box starts from: built here (`build`), a Boxdesk base, or the default (undefined). */
  base: { name: string; build: { tar: () => Readable; dockerfile: string; args: string[] } | null } | undefined;
}

/** A DNS label from a folder's or a devcontainer's name: lower case, dashes, at most 63. */
export function slug(text: string): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return s || 'box';
}

/** A context of one Dockerfile: FROM the image devcontainer.json names. */
function imageContext(image: string): Readable {
  const pack = tar.pack();
  pack.entry({ name: 'Dockerfile', mode: 0o644 }, `FROM ${image}\n`);
  pack.finalize();
  return pack as unknown as Readable;
}

/** What changed between the files the last up sent and these. */
export function changesSince(before: Record<string, string>, now: Map<string, string>): UpChanges {
  const added: string[] = [];
  const changed: string[] = [];
  for (const [file, digest] of now) {
    if (before[file] === undefined) added.push(file);
    else if (before[file] !== digest) changed.push(file);
  }
  const removed = Object.keys(before).filter((f) => !now.has(f));
  return { added, changed, removed };
}

/**
 * `box up`: a box from a project folder (its devcontainer.json, else its Dockerfile, else the
 * default base) with the folder's files in its workspace. A second up of the folder brings the
 * same box up to date (docs/api.md, "box up").
 */
export class UpService {
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: UpDeps) {
    this.unsubscribe = deps.bus.subscribe((event) => {
      if (event.type === 'box.deleted') deps.store.remove(event.data.box.id);
    });
  }

  dispose(): void {
    this.unsubscribe();
  }

  /** Uploads a stopped core left behind. */
  clearSpool(): void {
    fs.rmSync(this.deps.spoolDir, { recursive: true, force: true });
  }

  /** Reads and checks the upload and plans the box: every refusal (4xx) comes here, with nothing made. */
  async prepare(project: string, body: Readable, query: UpQuery): Promise<PreparedUp> {
    const file = path.join(this.deps.spoolDir, `${randomUUID()}.tar`);
    const folder = await spoolFolder(body, file, this.deps.uploadLimit);
    try {
      const plan = planFor(folder);
      const named = query.name ?? plan.name ?? query.folder;
      if (named === undefined)
        throw new ApiError('invalid_body', 'name the box: give name= (or folder=, the folder it is named after)', {
          errors: [{ path: 'querystring.name', message: 'is required when devcontainer.json has no name' }],
        });
      const name = query.name ?? slug(named);
      const row = this.deps.boxes.lookup(project, name);
      const record = row ? this.deps.store.get(row.id) : undefined;
      if (row && !record)
        throw new ApiError(
          'already_exists',
          `box "${name}" already exists in project "${project}" and was not made by box up; give another name (name=) or remove it`,
        );
      return {
        project,
        name,
        folder,
        plan,
        existing: row && record ? { row, record } : null,
        base: baseOf(plan, folder, project, name),
      };
    } catch (err) {
      folder.remove();
      throw err;
    }
  }

  /** Makes (or brings up to date) the box, each step told through `emit`; ends with a `done` line, or an `error` one. */
  async run(up: PreparedUp, emit: (line: UpLine) => void, signal: AbortSignal): Promise<void> {
    try {
      emit(await this.steps(up, emit, signal));
    } catch (err) {
      emit({ type: 'error', message: err instanceof ApiError ? err.message : `box up failed: ${String(err)}` });
      if (!(err instanceof ApiError)) throw err;
    } finally {
      up.folder.remove();
    }
  }

  private async steps(up: PreparedUp, emit: (line: UpLine) => void, signal: AbortSignal): Promise<UpDone> {
    const { project, name, plan, folder, existing } = up;
    const workspace = plan.workspaceFolder;
    const source = plan.source ?? 'no devcontainer.json or Dockerfile: the default base';
    emit({
      type: 'progress',
      phase: 'upload',
      message: `${folder.digests.size} files received; ${source} → box ${name}`,
    });
    for (const note of plan.notes) emit({ type: 'note', message: note });
    let image: string | null = existing?.record.image ?? null;
    if (up.base?.build) {
      emit({ type: 'progress', phase: 'build', message: `building base ${up.base.name}` });
      const { build, summary } = await buildBase(
        this.deps.builds,
        up.base.name,
        { ...up.base.build, tar: up.base.build.tar() },
        emit,
        signal,
      );
      emit({ type: 'progress', phase: 'build', message: summary });
      if (existing && existing.record.image && build.image !== existing.record.image)
        emit({
          type: 'note',
          message: `the base changed since box ${name} was made; the box keeps the root it has: remove it (box rm ${name}) and box up again to start from the new base`,
        });
      image = build.image;
    }
    if (signal.aborted) throw new ApiError('conflict', 'box up was cancelled');
    const changes = existing ? changesSince(existing.record.files, folder.digests) : null;
    const { row, started } = existing ? await this.wake(up, emit) : { row: await this.create(up, emit), started: true };
    if (existing && JSON.stringify(existing.record.environment) !== JSON.stringify(plan.environment))
      emit({
        type: 'note',
        message: `containerEnv/remoteEnv changed; box ${name} keeps the environment it was made with: remove it and box up again to take the new one`,
      });
    // Remembered before and after the copy: a box up cancelled from here on leaves a box a next up updates.
    const remember = (files: Record<string, string>) =>
      this.deps.store.put(
        { box_id: row.id, base: up.base?.name ?? 'default', image, environment: plan.environment, files },
        now(),
      );
    remember(existing?.record.files ?? {});
    await this.copy(up, row, changes, emit);
    remember(Object.fromEntries(folder.digests));
    let code = 0;
    if (!existing) code = await this.lifecycle(up, 'postCreateCommand', plan.postCreateCommand, emit, signal);
    else if (plan.postCreateCommand !== undefined)
      emit({ type: 'note', message: `postCreateCommand ran when box ${name} was made; it does not run again` });
    // postStartCommand runs as the box starts: made now, or started again from stopped.
    if (code === 0 && started) code = await this.lifecycle(up, 'postStartCommand', plan.postStartCommand, emit, signal);
    else if (!started && plan.postStartCommand !== undefined)
      emit({
        type: 'note',
        message: `postStartCommand runs when box ${name} starts; it was running, so it does not run again`,
      });
    if (signal.aborted) throw new ApiError('conflict', `box up was cancelled; box ${name} is kept as it is`);
    if (code !== 0)
      emit({ type: 'note', message: `a lifecycle command exited ${code}; the box ${name} is kept as it is` });
    const urls = await this.publish(up, emit);
    return {
      type: 'done',
      box: name,
      project,
      created: !existing,
      base: up.base?.name ?? 'default',
      workspace,
      files: folder.digests.size,
      changes,
      urls,
      exit_code: code,
    };
  }

  /** Every forwardPorts entry: the first at the box's own URL, the others each at theirs ({port}.{box}--{project}.localhost). */
  private async publish(up: PreparedUp, emit: (line: UpLine) => void): Promise<UpDone['urls']> {
    const [first, ...more] = up.plan.ports;
    if (first === undefined) return [];
    const box = await this.deps.publishing.publish(up.project, up.name, { port: first, ports: more });
    const urls = [{ port: first, url: box.url ?? '' }, ...(box.port_urls ?? [])];
    for (const { port, url } of urls)
      emit({ type: 'progress', phase: 'publish', message: `port ${port} published at ${url}` });
    return urls;
  }

  private async create(up: PreparedUp, emit: (line: UpLine) => void): Promise<BoxRow> {
    const { project, name, plan } = up;
    emit({ type: 'progress', phase: 'box', message: `creating box ${name}` });
    const env = Object.keys(plan.environment).length ? { environment: plan.environment } : {};
    await this.deps.boxes.create(project, { name, ...(up.base ? { base: up.base.name } : {}), ...env });
    return this.deps.boxes.find(project, name);
  }

  /** The box an earlier up made, running (a stopped one is started, a paused one woken). */
  private async wake(up: PreparedUp, emit: (line: UpLine) => void): Promise<{ row: BoxRow; started: boolean }> {
    const { project, name } = up;
    emit({
      type: 'progress',
      phase: 'box',
      message: `box ${name} exists (made by an earlier box up): bringing it up to date`,
    });
    const stopped = this.deps.boxes.find(project, name).status === 'stopped';
    if (stopped) await this.deps.boxes.resume(project, name);
    return { row: await this.deps.boxes.awake(project, name), started: stopped };
  }

  /** The folder's files into the workspace: all of them on a first up, then what was added or changed. */
  private async copy(
    up: PreparedUp,
    row: BoxRow,
    changes: UpChanges | null,
    emit: (line: UpLine) => void,
  ): Promise<void> {
    const { project, name, folder, plan } = up;
    const workspace = plan.workspaceFolder;
    const wanted = changes ? new Set([...changes.added, ...changes.changed]) : null;
    if (!wanted || wanted.size) {
      await this.deps.files.mkdir(project, name, workspace, true);
      // Folders come along whole; of the files, those wanted.
      const pick = (entry: string) => (!wanted || wanted.has(entry) || !folder.digests.has(entry) ? entry : null);
      await this.deps.engine.putArchive(row.container_id!, workspace, subTar(folder, pick));
    }
    const message = !changes
      ? `copied ${folder.digests.size} files into ${name}:${workspace}`
      : !changes.added.length && !changes.changed.length && !changes.removed.length
        ? `no file changed since the last box up of ${name}`
        : [
            `${changes.added.length} added, ${changes.changed.length} changed since the last box up`,
            ...changes.added.map((f) => `  added ${f}`),
            ...changes.changed.map((f) => `  changed ${f}`),
            ...changes.removed.map((f) => `  no longer in the folder (left in the box): ${f}`),
          ].join('\n');
    emit({ type: 'progress', phase: 'copy', message });
  }

  /** Runs a lifecycle command in the box, its output passed on as it comes; answers its exit code. */
  private async lifecycle(
    up: PreparedUp,
    label: string,
    command: DevCommand | undefined,
    emit: (line: UpLine) => void,
    signal: AbortSignal,
  ): Promise<number> {
    for (const { label: part, argv } of commandsOf(command)) {
      const named = `${label}${part ? ` (${part})` : ''}`;
      emit({ type: 'progress', phase: 'command', message: `${named}: ${argv.join(' ')}` });
      const result = await this.deps.exec.run(
        up.project,
        up.name,
        { command: argv, cwd: up.plan.workspaceFolder },
        (line) => {
          if (line.type !== 'exit') emit({ type: 'output', command: named, stream: line.type, data: line.data });
        },
        signal,
      );
      if (result.exit_code !== 0) return result.exit_code;
    }
    return 0;
  }
}

/** The base a plan names: one to build (a Dockerfile, an image), a Boxdesk base, or the default. */
function baseOf(plan: UpPlan, folder: UploadedFolder, project: string, name: string): PreparedUp['base'] {
  const built = slug(`up-${project === 'default' ? '' : `${project}-`}${name}`);
  if (plan.image?.startsWith('boxdesk/'))
    return { name: plan.image.slice('boxdesk/'.length).replace(/:latest$/, ''), build: null };
  if (plan.image) {
    const image = plan.image;
    return { name: built, build: { tar: () => imageContext(image), dockerfile: 'Dockerfile', args: [] } };
  }
  if (plan.build) {
    const { tar: contextTar, dockerfile } = buildContextTar(folder, plan.build.context, plan.build.dockerfile);
    return { name: built, build: { tar: contextTar, dockerfile, args: plan.build.args } };
  }
  return undefined;
}
