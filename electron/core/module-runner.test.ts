import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EVENT_DESCRIPTIONS } from '../../shared/events';
import { defineModule, ENGINE_UP_PHASES, type AnyModule, type CoreContext } from './module';
import { checkModules, ModuleSet } from './module-runner';
import { modules } from './modules';

/** A context with a log that records what it is told; the modules below use nothing else. */
function context(): { ctx: CoreContext; logged: string[] } {
  const logged: string[] = [];
  const log = {
    error: (obj: { module?: string; phase?: string }, msg: string) => logged.push(`${msg}: ${obj.module}/${obj.phase}`),
    warn: (obj: { module?: string }, msg: string) => logged.push(`${msg}: ${obj.module}`),
  };
  return { ctx: { log } as unknown as CoreContext, logged };
}

/** A module that records each hook it runs (and fails the ones named in `fails`). */
function recording(name: string, seen: string[], fails: string[] = [], needs: readonly AnyModule[] = []) {
  const step = (what: string) => () => {
    seen.push(`${name}.${what}`);
    if (fails.includes(what)) throw new Error(`${name} ${what} failed`);
  };
  return defineModule({
    name,
    needs,
    migrations: [],
    create: () => name,
    engineUp: { roots: step('roots'), reconcile: step('reconcile'), settled: step('settled') },
    atStart: { recover: step('recover'), collect: step('collect') },
    dispose: step('dispose'),
  });
}

describe("the core's modules", () => {
  test('each comes after what it needs, and every event kind of the contract has one module that emits it', () => {
    checkModules(modules);
    const declared = modules.flatMap((m) => Object.keys(m.events)).sort();
    const contract = Object.keys(EVENT_DESCRIPTIONS).sort();
    assert.deepEqual(declared, contract);
  });

  test("engine-up: the store, root replacements, volume and upload repair, the reconciler, then the default base, unused project networks, jobs and services' stray colours", () => {
    const order = ENGINE_UP_PHASES.flatMap((phase) =>
      modules.filter((m) => m.engineUp?.[phase]).map((m) => `${m.name}.${phase}`),
    );
    assert.deepEqual(order, [
      'storage.store',
      'boxes.roots',
      'volumes.repair',
      'files.repair',
      'boxes.reconcile',
      'bases.settled',
      'boxes.settled',
      'jobs.settled',
      'services.settled',
    ]);
  });
});

describe('checkModules', () => {
  const a = recording('a', []);
  test('refuses a module listed before one it needs, and two modules of one name', () => {
    const b = recording('b', [], [], [a]);
    assert.throws(() => checkModules([b, a]), /module "b" needs "a", which is not listed before it/);
    assert.throws(() => checkModules([a, recording('a', [])]), /two modules are named "a"/);
  });

  test('refuses an event kind or an id prefix claimed by two modules', () => {
    const withKind = (name: string) =>
      defineModule({ name, needs: [], migrations: [], events: { 'box.oom': 'x' }, create: () => null });
    assert.throws(
      () => checkModules([withKind('x'), withKind('y')]),
      /the event kind "box\.oom" is claimed by modules "x" and "y"/,
    );
    const withPrefix = (name: string) =>
      defineModule({ name, needs: [], migrations: [], idPrefixes: ['zz'], create: () => null });
    assert.throws(() => checkModules([withPrefix('x'), withPrefix('y')]), /the id prefix "zz_"/);
  });
});

describe('ModuleSet', () => {
  test('gives create the ports of the modules it needs, under their names', () => {
    const base = defineModule({ name: 'base', needs: [], migrations: [], create: () => ({ n: 1 }), port: (i) => i.n });
    const top = defineModule({ name: 'top', needs: [base], migrations: [], create: (_ctx, ports) => ports.base + 1 });
    const set = new ModuleSet([base, top], context().ctx);
    assert.equal(set.portOf(top), 2);
  });

  test('engine-up runs phase by phase, in module order within one; a failed step is logged and the others run', async () => {
    const seen: string[] = [];
    const { ctx, logged } = context();
    const set = new ModuleSet([recording('a', seen, ['roots']), recording('b', seen)], ctx);
    await set.engineUp();
    assert.deepEqual(seen, ['a.roots', 'b.roots', 'a.reconcile', 'b.reconcile', 'a.settled', 'b.settled']);
    assert.deepEqual(logged, ['engine recovery step failed: a/roots']);
  });

  test('the settled phase waits for a reconcile that succeeded', async () => {
    const seen: string[] = [];
    const set = new ModuleSet([recording('a', seen, ['reconcile']), recording('b', seen)], context().ctx);
    await set.engineUp();
    assert.deepEqual(seen, ['a.roots', 'b.roots', 'a.reconcile', 'b.reconcile']);
  });

  test('the start phases run in order; dispose runs last module first, past a failure', async () => {
    const seen: string[] = [];
    const { ctx, logged } = context();
    const set = new ModuleSet([recording('a', seen), recording('b', seen, ['dispose'])], ctx);
    await set.atStart();
    await set.dispose();
    assert.deepEqual(seen, ['a.recover', 'b.recover', 'a.collect', 'b.collect', 'b.dispose', 'a.dispose']);
    assert.deepEqual(logged, ['a module failed to close: b']);
  });
});
