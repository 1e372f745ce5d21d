import assert from 'node:assert/strict';
import fc from 'fast-check';
import { api } from './core-process';
import { context, Create } from './box-commands';
import { assertAgreement, boxesPath, settled, type ApiBox, type Model, type ModelBox, type Real } from './box-model';

type Mutation =
  | { kind: 'create'; create: Create }
  | { kind: 'stop' | 'resume' | 'delete'; name: string }
  | { kind: 'update'; name: string; tags: Record<string, string> };

/**
 * kill -9 of the core while a mutation is in flight (after `delayMs`), then a restart on the
 * same data dir. An answered (2xx) mutation must be reflected after the restart; one cut
 * off may go either way but must settle (no transient status once the reconciler ran).
 * The model takes whichever outcome the core settled on, after checking it is one of the two.
 */
export class CrashDuring implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly mutation: Mutation,
    readonly delayMs: number,
  ) {}

  check(model: Readonly<Model>): boolean {
    return this.mutation.kind !== 'create' || this.mutation.create.check(model);
  }

  private request(real: Real): Promise<Response> {
    const m = this.mutation;
    switch (m.kind) {
      case 'create':
        return api(real.core, 'POST', boxesPath(real), m.create.body());
      case 'update':
        return api(real.core, 'PUT', boxesPath(real, m.name), { tags: m.tags });
      case 'delete':
        return api(real.core, 'DELETE', boxesPath(real, m.name));
      default:
        return api(real.core, 'POST', `${boxesPath(real, m.name)}/${m.kind}`);
    }
  }

  /** The model's box after the mutation, had it finished (undefined: no box). */
  private after(model: Readonly<Model>): ModelBox | undefined {
    const m = this.mutation;
    const name = m.kind === 'create' ? m.create.name : m.name;
    const before = model.boxes.get(name);
    if (!before) return m.kind === 'create' ? m.create.expected(model) : undefined;
    switch (m.kind) {
      case 'create':
        return before;
      case 'stop':
        return { ...before, status: 'stopped' };
      case 'resume':
        return { ...before, status: 'running' };
      case 'update':
        return { ...before, tags: m.tags };
      case 'delete':
        return undefined;
    }
  }

  async run(model: Model, real: Real): Promise<void> {
    const name = this.mutation.kind === 'create' ? this.mutation.create.name : this.mutation.name;
    const before = model.boxes.get(name);
    const after = this.after(model);
    const pending = this.request(real).then(
      (res) => res.status,
      () => null,
    );
    await new Promise((r) => setTimeout(r, this.delayMs));
    await real.restart();
    real.kills++;
    const answered = await pending;
    const boxes = await settled(real);
    const found = boxes.find((b) => b.name === name);
    const actual = found ? view(found, before ?? after) : undefined;
    const acknowledged = answered !== null && answered >= 200 && answered < 300;
    const allowed = acknowledged ? [after] : [before, after];
    const same = (a: ModelBox | undefined, b: ModelBox | undefined) =>
      JSON.stringify(a && { ...a, marker: null }) === JSON.stringify(b && { ...b, marker: null });
    assert.ok(
      allowed.some((a) => same(actual, a)),
      `after kill -9 ${this.delayMs} ms into "${this.toString()}" (answered ${answered ?? 'nothing'}), ${name} is ${JSON.stringify(found ?? 'gone')}; allowed: ${JSON.stringify(allowed)}`,
    );
    if (actual) model.boxes.set(name, actual);
    else model.boxes.delete(name);
    real.steps++;
    await assertAgreement(model, real, context.instance);
  }

  [fc.toStringMethod](): string {
    return this.toString();
  }

  toString(): string {
    const m = this.mutation;
    const what =
      m.kind === 'create'
        ? m.create.toString()
        : m.kind === 'update'
          ? `update ${m.name} tags ${JSON.stringify(m.tags)}`
          : `${m.kind} ${m.name}`;
    return `kill -9 at ${this.delayMs} ms into ${what}`;
  }
}

/** The model's view of a box as the API shows it; its marker is what the model knew (not readable without exec). */
function view(b: ApiBox, known: ModelBox | undefined): ModelBox {
  assert.ok(
    b.status === 'running' || b.status === 'stopped',
    `${b.name} settled as ${b.status} (${b.status_reason ?? ''})`,
  );
  return { status: b.status, environment: b.environment, tags: b.tags, marker: known?.marker ?? null };
}

export function crashCommands(): fc.Arbitrary<fc.AsyncCommand<Model, Real>> {
  const name = fc.constantFrom('a', 'b', 'c');
  const delay = fc.integer({ min: 0, max: 700 });
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    name.map((n) => ({ kind: 'create' as const, create: new Create(n, null, { v: '1' }, null) })),
    fc
      .tuple(name, fc.constantFrom('stop', 'resume', 'delete') as fc.Arbitrary<'stop' | 'resume' | 'delete'>)
      .map(([n, kind]) => ({ kind, name: n })),
    fc
      .tuple(name, fc.constantFrom('x', 'y'))
      .map(([n, v]) => ({ kind: 'update' as const, name: n, tags: { crash: v } })),
  );
  return fc.tuple(mutation, delay).map(([m, d]) => new CrashDuring(m, d));
}
