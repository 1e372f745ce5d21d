import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../../../shared/errors';
import type { BaseBuild, BaseBuildQuery, BuildLogLine } from '../../../shared/schemas/builds';
import { DEFAULT_BASE, type BaseCatalogWrites, type BasesPort } from '../bases/port';
import type { BoxesPort } from '../boxes/port';
import { EngineError, type ContainerEngine } from '../engine/container-engine';
import type { EventBus } from '../events/event-bus';
import { newId, now } from '../ids';
import { spoolContext } from './build-context';
import { describeStep, type BaseReference } from './dockerfile-from';
import type { BuildStore } from './store';

export interface BuildDeps {
  store: BuildStore;
  bases: Pick<BasesPort, 'resolveImage'> & Pick<BaseCatalogWrites, 'get' | 'insert' | 'replaceImage'>;
  boxes: Pick<BoxesPort, 'roots' | 'drainPool'>;
  engine: ContainerEngine;
  bus: EventBus;
  log: FastifyBaseLogger;
  uploadLimit: number;
  /** Where contexts wait for the engine (removed when their build ends). */
  spoolDir: string;
}

/** Output lines a failure quotes. */
const LAST_LINES = 15;
// eslint-disable-next-line no-control-regex -- the builder colours a step's stderr with ESC sequences
const ANSI = /\x1b\[[0-9;]*m/g;
/** The builder's own lines about its containers and layers: not the step's output. */
const BUILDER_NOISE = /^\s*---> |^Removing intermediate container /;

/** A piece of a step's output as the lines a failure quotes: without colours, blank lines and the builder's notes. */
function outputLines(text: string): string[] {
  return text
    .replace(ANSI, '')
    .split('\n')
    .filter((l) => l.trim() !== '' && !BUILDER_NOISE.test(l));
}

/** A build in progress: how to stop it, who follows its log, and when it ends. */
interface LiveBuild {
  id: string;
  controller: AbortController;
  followers: Set<PassThrough>;
  seq: number;
  /** Lines not yet written to the database (each write is a commit with an fsync: they go in batches). */
  pending: { seq: number; line: BuildLogLine }[];
  /** The step it is at (written to the database when it ends). */
  step: string | null;
  flushTimer: NodeJS.Timeout | null;
  ended: Promise<void>;
}

/** How long a log line may wait in memory before the batch it is in is written. */
const FLUSH_MS = 250;

/**
 * Bases from a Dockerfile: the context is read and checked whole first (so a refusal leaves
 * nothing), then the engine builds it in the background while its log is kept and streamed.
 * A rebuilt base points at its new image; the old one stays while boxes made from it use it.
 */
export class BuildService {
  /** By base name: one build per base at a time. */
  private readonly live = new Map<string, LiveBuild>();

  constructor(private readonly deps: BuildDeps) {}

  async start(name: string, body: Readable, query: BaseBuildQuery): Promise<BaseBuild> {
    if (name === DEFAULT_BASE)
      throw new ApiError(
        'conflict',
        'the base "default" is not built here: start the core with --default-base naming an image to change it',
      );
    const building = this.live.get(name);
    if (building)
      throw new ApiError('conflict', `base "${name}" is being built (${building.id}); wait for it or cancel it first`);
    const smuggled = (query.build_arg ?? []).find((kv) => /^boxdesk\//i.test(kv.slice(kv.indexOf('=') + 1)));
    if (smuggled)
      throw new ApiError(
        'invalid_body',
        `build_arg ${smuggled.slice(0, smuggled.indexOf('='))}: a build argument cannot name a Boxdesk base (the engine would pull boxdesk/… from a registry); write FROM boxdesk/<base> in the Dockerfile`,
      );
    const { engine } = this.deps;
    if (!engine.buildImage) throw new ApiError('conflict', `the ${engine.name} engine cannot build images`);
    const id = newId('bld');
    const file = path.join(this.deps.spoolDir, `${id}.tar`);
    let ended!: () => void;
    const entry: LiveBuild = {
      id,
      controller: new AbortController(),
      followers: new Set(),
      seq: 0,
      pending: [],
      step: null,
      flushTimer: null,
      ended: new Promise((r) => (ended = r)),
    };
    this.live.set(name, entry);
    // Whatever happens from here, the build lets go of its name, its context and its followers.
    const release = () => {
      fs.rmSync(file, { force: true });
      this.live.delete(name);
      for (const f of entry.followers) f.end();
      ended();
    };
    const build: BaseBuild = {
      id,
      base: name,
      status: 'building',
      step: null,
      image: null,
      created_at: now(),
      ended_at: null,
    };
    let references: BaseReference[];
    try {
      ({ references } = await spoolContext(body, {
        file,
        dockerfile: query.dockerfile ?? 'Dockerfile',
        limit: this.deps.uploadLimit,
        resolveBase: (base) => this.deps.bases.resolveImage(base),
      }));
      this.deps.store.insert(build);
    } catch (err) {
      release();
      throw err;
    }
    this.deps.bus.emit('base.build.started', { build }, null);
    void this.run(build, entry, file, query, references)
      .catch((err: unknown) => this.deps.log.error({ err, build: id }, 'a base build could not be recorded'))
      .finally(() => {
        this.flushQuietly(entry);
        release();
      });
    return build;
  }

  private record(entry: LiveBuild, line: BuildLogLine): void {
    entry.seq++;
    entry.pending.push({ seq: entry.seq, line });
    entry.flushTimer ??= setTimeout(() => this.flushQuietly(entry), FLUSH_MS);
    const text = `${JSON.stringify(line)}\n`;
    for (const f of entry.followers) f.write(text);
  }

  /** Writes the waiting log lines; a database that refuses them costs those lines, not the core. */
  private flushQuietly(entry: LiveBuild): void {
    if (entry.flushTimer) clearTimeout(entry.flushTimer);
    entry.flushTimer = null;
    try {
      this.deps.store.appendAll(entry.id, entry.pending.splice(0));
    } catch (err) {
      this.deps.log.error({ err, build: entry.id }, "a base build's log lines could not be written");
    }
  }

  private async run(
    build: BaseBuild,
    entry: LiveBuild,
    file: string,
    query: BaseBuildQuery,
    references: BaseReference[],
  ): Promise<void> {
    const { bus, engine } = this.deps;
    let step: string | null = null;
    let recent: string[] = [];
    const buildArgs = Object.fromEntries(
      (query.build_arg ?? []).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
    try {
      const image = await engine.buildImage!(
        fs.createReadStream(file),
        {
          dockerfile: query.dockerfile ?? 'Dockerfile',
          buildArgs,
          ...(query.target ? { target: query.target } : {}),
          labels: this.deps.boxes.roots.labels('base', build.base),
        },
        (line) => {
          if (line.step) {
            step = describeStep(line.step, references);
            recent = [];
            entry.step = step;
            this.record(entry, { step });
            bus.emit('base.build.step', { build: { ...build, step } }, null);
            return;
          }
          if (line.stream) recent.push(...outputLines(line.stream));
          if (recent.length > LAST_LINES) recent = recent.slice(-LAST_LINES);
          this.record(entry, line);
        },
        entry.controller.signal,
      );
      // A cancel that came as the engine finished wins: the base stays as it was.
      if (entry.controller.signal.aborted) {
        await engine.removeImage(image).catch(() => undefined);
        return this.finish(build, entry, { status: 'cancelled', step });
      }
      try {
        await this.adopt(build.base, image);
      } catch (err) {
        await engine.removeImage(image).catch(() => undefined);
        throw err;
      }
      this.finish(build, entry, { status: 'done', step, image });
    } catch (err) {
      if (entry.controller.signal.aborted) return this.finish(build, entry, { status: 'cancelled', step });
      const why = err instanceof EngineError || err instanceof ApiError ? err.message : String(err);
      this.deps.log.warn({ build: build.id, base: build.base, err }, 'a base build failed');
      const where = step ? `step ${step} failed` : 'the build failed';
      const tail = recent.length ? `\nits last lines:\n${recent.join('\n')}` : '';
      this.finish(build, entry, { status: 'failed', step, error: `${where}: ${why}${tail}` });
    }
  }

  /** The base now starts from `image`; the image it had before goes unless something still uses it. */
  private async adopt(name: string, image: string): Promise<void> {
    const { bases, engine } = this.deps;
    const old = bases.get(name);
    if (!old) {
      if (bases.insert({ name, image, created_at: now(), owns_image: 1, from_snapshot: null })) return;
      throw new ApiError('already_exists', `base "${name}" was made by another request during the build`);
    }
    bases.replaceImage(name, image);
    // The engine keeps an image a box's container or another image is made from: the old warm pool goes first.
    await this.deps.boxes.drainPool(name);
    if (old.owns_image && old.image !== image) await engine.removeImage(old.image).catch(() => undefined);
  }

  private finish(
    build: BaseBuild,
    entry: LiveBuild,
    end: Pick<BaseBuild, 'status' | 'step'> & Partial<BaseBuild>,
  ): void {
    const ended: BaseBuild = { ...build, image: null, ...end, ended_at: now() };
    this.deps.store.update(build.id, {
      status: ended.status,
      step: ended.step,
      error: ended.error,
      image: ended.image,
      ended_at: ended.ended_at,
    });
    if (ended.error) this.record(entry, { error: ended.error });
    const kind = `base.build.${ended.status}` as 'base.build.done' | 'base.build.failed' | 'base.build.cancelled';
    this.deps.bus.emit(kind, { build: ended }, null);
  }

  get(name: string, id: string): BaseBuild {
    const build = this.deps.store.get(name, id);
    const entry = this.live.get(name);
    if (build && entry?.id === id && build.status === 'building') return { ...build, step: entry.step };
    if (!build)
      throw new ApiError(
        'not_found',
        `build "${id}" of base "${name}" not found; GET /v1/bases/${name}/builds lists them`,
      );
    return build;
  }

  list(name: string): BaseBuild[] {
    return this.deps.store.list(name);
  }

  /** The kept log as ndjson; with `follow`, then each new line until the build ends. */
  log(name: string, id: string, follow: boolean): Readable {
    this.get(name, id);
    const out = new PassThrough();
    // Read, take the lines not yet written and subscribe in one turn: no line falls between them.
    for (const { line } of this.deps.store.log(id)) out.write(`${line}\n`);
    const entry = this.live.get(name);
    if (entry?.id === id) for (const { line } of entry.pending) out.write(`${JSON.stringify(line)}\n`);
    if (follow && entry?.id === id) {
      entry.followers.add(out);
      out.on('close', () => entry.followers.delete(out));
    } else out.end();
    return out;
  }

  /** Stops a build in progress; nothing of it is kept. 409 once it has ended. */
  async cancel(name: string, id: string): Promise<void> {
    const build = this.get(name, id);
    const entry = this.live.get(name);
    if (!entry || entry.id !== id)
      throw new ApiError('conflict', `build "${id}" of base "${name}" has already ended (${build.status})`);
    entry.controller.abort();
    await entry.ended;
    const ended = this.deps.store.get(name, id);
    if (ended?.status === 'done')
      throw new ApiError('conflict', `build "${id}" of base "${name}" finished before the cancel reached it`);
  }

  /** Builds a stopped core left `building` failed. */
  recover(): void {
    for (const build of this.deps.store.interrupted())
      this.deps.store.update(build.id, {
        status: 'failed',
        error: 'the core stopped during the build; build again',
        ended_at: now(),
      });
    fs.rmSync(this.deps.spoolDir, { recursive: true, force: true });
  }

  async dispose(): Promise<void> {
    const all = [...this.live.values()];
    for (const entry of all) entry.controller.abort();
    await Promise.all(all.map((e) => e.ended));
  }
}
