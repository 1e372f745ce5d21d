import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before } from 'node:test';
import fc from 'fast-check';
import { api, startCoreProcess, tempDataDir, type CoreProcess } from './core-process';
import {
  assertAgreement,
  boxesPath,
  type ApiBox,
  type Model,
  type ModelBox,
  type ModelFigures,
  type Real,
} from './box-model';
import { instanceIdOf, removeInstanceLeftovers } from './reliability';

/** The sequence's instance id, for the agreement check (set once the core has started). */
export const context = { instance: '' };

const NAMES = ['a', 'b', 'c'];
const MAX_BOXES = 3;
const envArb = fc.option(
  fc
    .dictionary(fc.constantFrom('MVAR', 'OTHER'), fc.constantFrom('x', 'y z', 'é', ''), { maxKeys: 2 })
    .map((d) => ({ ...d })),
  { freq: 2 },
);
const tagsArb = fc.option(
  fc.dictionary(fc.constantFrom('team', 'k.v/x'), fc.constantFrom('a', 'b'), { maxKeys: 2 }).map((d) => ({ ...d })),
  { freq: 2 },
);

async function json<T>(res: Response): Promise<T> {
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`not JSON (${res.status}): ${text.slice(0, 200)}`);
  }
}

async function expectStatus(res: Response, status: number, what: string): Promise<void> {
  if (res.status !== status) assert.fail(`${what}: expected ${status}, got ${res.status} ${await res.text()}`);
}

abstract class BoxCommand implements fc.AsyncCommand<Model, Real> {
  abstract check(model: Readonly<Model>): boolean;
  protected abstract apply(model: Model, real: Real): Promise<void>;
  abstract toString(): string;

  /** How fast-check prints the command in a counterexample. */
  [fc.toStringMethod](): string {
    return this.toString();
  }

  async run(model: Model, real: Real): Promise<void> {
    await this.apply(model, real);
    real.steps++;
    await assertAgreement(model, real, context.instance);
  }
}

export class Create extends BoxCommand {
  constructor(
    readonly name: string,
    readonly environment: Record<string, string> | null,
    readonly tags: Record<string, string> | null,
    readonly fork: string | null,
  ) {
    super();
  }
  check(model: Readonly<Model>): boolean {
    return (
      (model.boxes.size < MAX_BOXES || model.boxes.has(this.name)) && (this.fork === null || model.boxes.has(this.fork))
    );
  }
  body(): Record<string, unknown> {
    return {
      name: this.name,
      ...(this.environment ? { environment: this.environment } : {}),
      ...(this.tags ? { tags: this.tags } : {}),
      ...(this.fork ? { fork: this.fork } : {}),
    };
  }
  /** What the model holds after this create succeeded. */
  expected(model: Readonly<Model>): ModelBox {
    const source = this.fork ? model.boxes.get(this.fork)! : null;
    return {
      status: 'running',
      environment: this.environment ?? source?.environment ?? {},
      tags: this.tags ?? {},
      marker: source?.marker ?? null,
    };
  }
  protected async apply(model: Model, real: Real): Promise<void> {
    const res = await api(real.core, 'POST', boxesPath(real), this.body());
    if (model.boxes.has(this.name)) return expectStatus(res, 409, `create existing ${this.name}`);
    await expectStatus(res, 201, `create ${this.name}`);
    assert.equal((await json<ApiBox>(res)).status, 'running');
    model.boxes.set(this.name, this.expected(model));
  }
  toString(): string {
    return `create ${JSON.stringify(this.body())}`;
  }
}

abstract class OnBox extends BoxCommand {
  constructor(readonly name: string) {
    super();
  }
  check(_model: Readonly<Model>): boolean {
    return true;
  }
}

/** stop or resume: 200 with the status it settles in, or 404 for a box the model does not have. */
export class Transition extends OnBox {
  constructor(
    name: string,
    readonly verb: 'stop' | 'resume',
  ) {
    super(name);
  }
  protected async apply(model: Model, real: Real): Promise<void> {
    const res = await api(real.core, 'POST', `${boxesPath(real, this.name)}/${this.verb}`);
    const box = model.boxes.get(this.name);
    if (!box) return expectStatus(res, 404, `${this.verb} missing ${this.name}`);
    await expectStatus(res, 200, `${this.verb} ${this.name}`);
    const settled = this.verb === 'stop' ? 'stopped' : 'running';
    assert.equal((await json<ApiBox>(res)).status, settled);
    box.status = settled;
  }
  toString(): string {
    return `${this.verb} ${this.name}`;
  }
}

export class Delete extends OnBox {
  protected async apply(model: Model, real: Real): Promise<void> {
    const res = await api(real.core, 'DELETE', boxesPath(real, this.name));
    if (!model.boxes.has(this.name)) return expectStatus(res, 404, `delete missing ${this.name}`);
    await expectStatus(res, 204, `delete ${this.name}`);
    model.boxes.delete(this.name);
  }
  toString(): string {
    return `delete ${this.name}`;
  }
}

export class Update extends OnBox {
  constructor(
    name: string,
    readonly environment: Record<string, string> | null,
    readonly tags: Record<string, string> | null,
  ) {
    super(name);
  }
  body(): Record<string, unknown> {
    return {
      ...(this.environment ? { environment: this.environment } : {}),
      ...(this.tags ? { tags: this.tags } : {}),
    };
  }
  protected async apply(model: Model, real: Real): Promise<void> {
    const res = await api(real.core, 'PUT', boxesPath(real, this.name), this.body());
    const box = model.boxes.get(this.name);
    if (!box) return expectStatus(res, 404, `update missing ${this.name}`);
    await expectStatus(res, 200, `update ${this.name}`);
    if (this.environment) box.environment = this.environment;
    if (this.tags) box.tags = this.tags;
    const got = await json<ApiBox>(res);
    assert.deepEqual(
      [got.environment, got.tags],
      [box.environment, box.tags],
      'the update answers the full representation',
    );
  }
  toString(): string {
    return `update ${this.name} ${JSON.stringify(this.body())}`;
  }
}

/** Reads $MVAR and /marker in the box, then writes a new marker: environment and root both checked. */
export class Exec extends OnBox {
  constructor(
    name: string,
    readonly value: string,
  ) {
    super(name);
  }
  protected async apply(model: Model, real: Real): Promise<void> {
    const script = 'printf "%s:" "$MVAR"; cat /marker 2>/dev/null; printf "%s" "$1" > /marker';
    const res = await api(real.core, 'POST', `${boxesPath(real, this.name)}/exec`, {
      command: ['sh', '-c', script, 'sh', this.value],
    });
    const box = model.boxes.get(this.name);
    if (!box) return expectStatus(res, 404, `exec in missing ${this.name}`);
    if (box.status !== 'running') return expectStatus(res, 409, `exec in stopped ${this.name}`);
    await expectStatus(res, 200, `exec in ${this.name}`);
    const out = await json<{ exit_code: number; stdout: string; stderr: string }>(res);
    assert.equal(out.exit_code, 0, out.stderr);
    assert.equal(
      out.stdout,
      `${box.environment.MVAR ?? ''}:${box.marker ?? ''}`,
      `the box's environment and root as the model has them`,
    );
    box.marker = this.value;
  }
  toString(): string {
    return `exec in ${this.name}: marker ${this.value}`;
  }
}

/** Snapshot and restore: only where the served document has those routes. */
export class Snapshot extends OnBox {
  protected async apply(model: Model, real: Real): Promise<void> {
    const res = await api(real.core, 'POST', `${boxesPath(real, this.name)}/snapshots`, {});
    const box = model.boxes.get(this.name);
    if (!box) return expectStatus(res, 404, `snapshot missing ${this.name}`);
    await expectStatus(res, 201, `snapshot ${this.name}`);
    const snap = await json<{ id: string }>(res);
    model.snapshots.set(snap.id, { box: this.name, marker: box.marker, environment: box.environment });
  }
  toString(): string {
    return `snapshot ${this.name}`;
  }
}

/** Any snapshot of the project into a box: its root becomes the snapshot's; a running box restarts, a stopped one stays stopped. */
export class Restore extends OnBox {
  constructor(
    name: string,
    readonly pick: number,
  ) {
    super(name);
  }
  override check(model: Readonly<Model>): boolean {
    return model.snapshots.size > 0 && model.boxes.has(this.name);
  }
  protected async apply(model: Model, real: Real): Promise<void> {
    const [id, snap] = [...model.snapshots][this.pick % model.snapshots.size]!;
    const res = await api(real.core, 'POST', `${boxesPath(real, this.name)}/restore`, { snapshot_id: id });
    await expectStatus(res, 200, `restore ${this.name} to ${id}`);
    const box = model.boxes.get(this.name)!;
    assert.equal((await json<ApiBox>(res)).status, box.status, 'a restore keeps the box running or stopped');
    box.marker = snap.marker;
  }
  toString(): string {
    return `restore ${this.name} (snapshot #${this.pick})`;
  }
}

/** A new box from a snapshot: its root and environment are the snapshot's. */
export class ForkSnapshot extends BoxCommand {
  constructor(
    readonly name: string,
    readonly pick: number,
  ) {
    super();
  }
  check(model: Readonly<Model>): boolean {
    return model.snapshots.size > 0 && (model.boxes.size < MAX_BOXES || model.boxes.has(this.name));
  }
  protected async apply(model: Model, real: Real): Promise<void> {
    const [id, snap] = [...model.snapshots][this.pick % model.snapshots.size]!;
    const res = await api(real.core, 'POST', boxesPath(real), { name: this.name, fork: id });
    if (model.boxes.has(this.name)) return expectStatus(res, 409, `fork into existing ${this.name}`);
    await expectStatus(res, 201, `fork ${this.name} from snapshot ${id}`);
    model.boxes.set(this.name, { status: 'running', environment: snap.environment, tags: {}, marker: snap.marker });
  }
  toString(): string {
    return `create ${this.name} from snapshot #${this.pick}`;
  }
}

/** The command arbitraries; snapshot and restore join when `routes` (the served document's paths) has them. */
export function boxCommands(routes: Set<string>): fc.Arbitrary<fc.AsyncCommand<Model, Real>>[] {
  const name = fc.constantFrom(...NAMES);
  const list: fc.Arbitrary<fc.AsyncCommand<Model, Real>>[] = [
    fc.tuple(name, envArb, tagsArb).map(([n, e, t]) => new Create(n, e, t, null)),
    fc.tuple(name, name, envArb).map(([n, src, e]) => new Create(n, e, null, src)),
    name.map((n) => new Transition(n, 'stop')),
    name.map((n) => new Transition(n, 'resume')),
    name.map((n) => new Delete(n)),
    fc.tuple(name, envArb, tagsArb).map(([n, e, t]) => new Update(n, e, t)),
    fc.tuple(name, fc.constantFrom('1', 'two', 'drei')).map(([n, v]) => new Exec(n, v)),
  ];
  if (routes.has('/v1/projects/{project}/boxes/{name}/snapshots')) list.push(name.map((n) => new Snapshot(n)));
  if (routes.has('/v1/projects/{project}/boxes/{name}/restore'))
    list.push(fc.tuple(name, fc.nat(3)).map(([n, p]) => new Restore(n, p)));
  if (routes.has('/v1/projects/{project}/boxes/{name}/snapshots'))
    list.push(fc.tuple(name, fc.nat(3)).map(([n, p]) => new ForkSnapshot(n, p)));
  return list;
}

/**
 * A sequence of MIN to MAX commands that starts with a create (a sequence of 404s says little),
 * with creates weighted up so boxes exist for the other commands to act on. fc.commands makes
 * many short sequences, and commands whose precondition fails are skipped: hence the floor.
 */
export function sequenceOf(
  commands: fc.Arbitrary<fc.AsyncCommand<Model, Real>>[],
  min: number,
  max: number,
): fc.Arbitrary<fc.AsyncCommand<Model, Real>[]> {
  const create = commands[0]!;
  return fc
    .tuple(create, fc.array(fc.oneof(create, ...commands), { minLength: min - 1, maxLength: max - 1 }))
    .map(([first, rest]) => [first, ...rest]);
}

/** The core process of a model test file, the routes its document serves, and what the runs did. */
export interface ModelCore {
  core: CoreProcess;
  dataDir: string;
  routes: Set<string>;
  figures: ModelFigures;
  /** Starts the core again on the same data dir (after a kill). */
  restart(): Promise<CoreProcess>;
}

/**
 * A model test file's core (rate limit off): started before its tests with the routes it serves
 * read; after them, `summary` of the figures is printed, the core stopped and everything of its
 * engine instance removed.
 */
export function withModelCore(summary: (figures: ModelFigures) => string): ModelCore {
  const start = () => startCoreProcess({ dataDir: m.dataDir, args: ['--rate-limit', '0'] });
  const m: ModelCore = {
    core: undefined as unknown as CoreProcess,
    dataDir: tempDataDir(),
    routes: new Set(),
    figures: { sequences: 0, steps: 0, kills: 0 },
    restart: async () => (m.core = await start()),
  };
  before(async () => {
    m.core = await start();
    context.instance = instanceIdOf(m.dataDir);
    const doc = (await (await api(m.core, 'GET', '/v1/openapi.json')).json()) as { paths: object };
    m.routes = new Set(Object.keys(doc.paths));
  });
  after(async () => {
    console.log(summary(m.figures));
    await m.core?.stop();
    if (context.instance) await removeInstanceLeftovers(context.instance);
    fs.rmSync(m.dataDir, { recursive: true, force: true });
  });
  return m;
}
