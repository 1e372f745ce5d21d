import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Token } from '../../../shared/schemas/system';
import { ProjectScopedError, seesFor } from './project-scoped-error';

const token = (project: string | null): Token => ({
  id: 'tok_x',
  name: 'x',
  scopes: ['write'],
  project,
  created_at: '2026-11-22T08:15:02.123Z',
  last_used_at: null,
});

test('a refusal naming other projects is worded for the token: names only for those who may see them', () => {
  const err = new ProjectScopedError(
    'already_exists',
    (sees) => (sees('a') ? 'held by box "web" in "a"' : 'held elsewhere'),
    {
      errors: [{ path: 'body.domains.0', message: 'is taken' }],
    },
  );
  assert.equal(err.message, 'held by box "web" in "a"', 'unrestricted wording by default');
  assert.equal(err.for(token(null)).message, 'held by box "web" in "a"');
  assert.equal(err.for(token('a')).message, 'held by box "web" in "a"');
  const hidden = err.for(token('b'));
  assert.equal(hidden.message, 'held elsewhere');
  assert.equal(hidden.status, 409);
  assert.deepEqual(hidden.errors, [{ path: 'body.domains.0', message: 'is taken' }]);
  assert.equal(seesFor(null)('any'), true);
});
