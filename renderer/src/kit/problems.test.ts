import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../shared/errors';
import { bodyPath, placeProblem } from './problems';

const fieldOf = (p: string) => (p === 'name' ? 'name' : p.startsWith('config.cpus') ? 'cpus' : null);

test("a problem's errors[].path lands at its field; what no field claims is general", () => {
  assert.equal(bodyPath('body.config.cpus'), 'config.cpus');
  assert.equal(bodyPath('/config/cpus'), 'config.cpus');
  const invalid = new ApiError('invalid_body', 'bad', {
    errors: [
      { path: 'body.config.cpus', message: 'too many' },
      { path: 'body.other', message: 'ignored' },
    ],
  });
  assert.deepEqual(placeProblem(invalid, fieldOf), { fields: { cpus: 'too many' }, general: null });
  const unplaced = new ApiError('invalid_body', 'bad', { errors: [{ path: 'query.limit', message: 'no' }] });
  assert.equal(placeProblem(unplaced, fieldOf).general, unplaced);
  const network = new Error('offline');
  assert.deepEqual(placeProblem(network, fieldOf), { fields: {}, general: network });
  assert.deepEqual(placeProblem(null, fieldOf), { fields: {}, general: null });
});

test('a name already taken lands at the name field, with the hint when given', () => {
  const taken = new ApiError('already_exists', 'a volume named data exists');
  assert.deepEqual(placeProblem(taken, fieldOf, { field: 'name', hint: 'pick another name' }), {
    fields: { name: 'a volume named data exists; pick another name' },
    general: null,
  });
  assert.equal(placeProblem(taken, fieldOf).general, taken, 'without a taken field it is general');
});
