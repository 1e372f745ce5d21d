import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../shared/errors';
import { BOX_STATUSES } from '../../../shared/schemas/box';
import { assertTransition, type BoxFacts, type BoxOperation } from './box-state-machine';

const OPS: BoxOperation[] = ['stop', 'resume', 'pause', 'wake', 'delete', 'update', 'exec', 'logs', 'stats', 'files'];

function refusal(box: BoxFacts, op: BoxOperation): ApiError | null {
  try {
    assertTransition(box, op);
    return null;
  } catch (err) {
    assert.ok(err instanceof ApiError);
    return err;
  }
}

/**
 * What a user may do to a box in each status, as SPEC.md says: stop and resume are
 * idempotent, delete works from every settled status, a box mid-transition refuses
 * everything, and an `error` box that lost its container can only be updated or deleted.
 */
const ALLOWED_BY_STATUS: Record<string, BoxOperation[]> = {
  creating: [],
  running: ['stop', 'resume', 'pause', 'wake', 'delete', 'update', 'exec', 'logs', 'stats', 'files'],
  // Paused: what needs it running wakes it first (lifecycle/sleep.ts); the rest works on it frozen.
  paused: ['stop', 'resume', 'pause', 'wake', 'delete', 'update', 'logs', 'stats'],
  stopping: [],
  stopped: ['stop', 'resume', 'delete', 'update', 'logs', 'files'],
  resuming: [],
  deleting: [],
  'error with its container': ['stop', 'resume', 'delete', 'update', 'logs', 'files'],
  'error without its container': ['delete', 'update'],
};

function facts(label: string): BoxFacts {
  if (label.startsWith('error')) return { name: 'b', status: 'error', hasContainer: label.includes('with its') };
  return { name: 'b', status: label as BoxFacts['status'], hasContainer: true };
}

test('each status allows exactly what a user may do; every refusal is a 409 saying why, with a hint that works', () => {
  assert.deepEqual(
    Object.keys(ALLOWED_BY_STATUS)
      .filter((l) => !l.startsWith('error'))
      .concat('error'),
    [...BOX_STATUSES.filter((s) => s !== 'error'), 'error'],
    'every status is in the table',
  );
  for (const [label, allowed] of Object.entries(ALLOWED_BY_STATUS)) {
    const box = facts(label);
    for (const op of OPS) {
      const err = refusal(box, op);
      assert.equal(err === null, allowed.includes(op), `${label}: ${op} ${err ? 'refused' : 'allowed'}`);
      if (!err) continue;
      assert.deepEqual([err.status, err.code], [409, 'conflict']);
      const transient = allowed.length === 0;
      assert.match(
        err.message,
        transient ? /^box "b" is \w+ing; / : new RegExp(`^cannot ${op} box "b" while it is ${box.status}; `),
      );
      // The hint names only operations this box allows, or tells the user to wait.
      const hint = err.hint ?? '';
      const named = OPS.filter((o) => new RegExp(`\\b${o}\\b`).test(hint));
      for (const o of named)
        assert.ok(allowed.includes(o), `${label}/${op}: hint "${hint}" names ${o}, which is refused`);
      if (transient) assert.match(hint, /wait until it is no longer/);
      else assert.ok(named.length > 0, `${label}/${op}: "${hint}" names something to do`);
    }
  }
});

test('an error box with its container can be resumed or stopped; one without can only be deleted or updated', () => {
  assert.equal(refusal({ name: 'b', status: 'error', hasContainer: true }, 'resume'), null);
  assert.equal(refusal({ name: 'b', status: 'error', hasContainer: true }, 'stop'), null);
  assert.ok(refusal({ name: 'b', status: 'error', hasContainer: false }, 'resume'));
  assert.equal(refusal({ name: 'b', status: 'error', hasContainer: false }, 'update'), null);
  assert.equal(refusal({ name: 'b', status: 'error', hasContainer: false }, 'delete'), null);
});
