import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../shared/errors';
import { BOX_STATUSES } from '../../../shared/schemas/box';
import { assertTransition, type BoxFacts, type BoxOperation } from './box-state-machine';

const OPS: BoxOperation[] = ['stop', 'resume', 'delete', 'update', 'exec', 'logs', 'stats'];

function refusal(box: BoxFacts, op: BoxOperation): ApiError | null {
  try {
    assertTransition(box, op);
    return null;
  } catch (err) {
    assert.ok(err instanceof ApiError);
    return err;
  }
}

test('every 409 hint names an operation the box allows (or says to wait), never a refused one', () => {
  for (const status of BOX_STATUSES) {
    for (const hasContainer of [true, false]) {
      const box = { name: 'b', status, hasContainer };
      for (const op of OPS) {
        const err = refusal(box, op);
        if (!err) continue;
        assert.equal(err.status, 409);
        const hint = err.hint ?? '';
        assert.ok(hint.length > 0, `${status}/${op} has a hint`);
        const named = (['resume', 'delete', 'stop'] as BoxOperation[]).filter((o) =>
          new RegExp(`\\b${o}\\b`).test(hint),
        );
        for (const o of named)
          assert.equal(
            refusal(box, o),
            null,
            `${status} (container: ${hasContainer}) ${op}: hint "${hint}" names ${o}, which is refused`,
          );
        if (named.length === 0) assert.match(hint, /wait/, `${status}/${op}: "${hint}"`);
      }
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
