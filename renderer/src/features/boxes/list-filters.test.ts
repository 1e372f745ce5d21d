import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../../shared/schemas/box';
import { NO_FILTERS, applyFilters, tagsOf } from './list-filters';
import { sampleBox } from './sample-box';

const box = (name: string, status: Box['status'], tags: Record<string, string>, created: string): Box =>
  sampleBox(name, status, { tags, created_at: created, updated_at: created });

const boxes = [
  box('web', 'running', { team: 'blue' }, '2026-01-02T00:00:00.000Z'),
  box('api', 'stopped', { team: 'red' }, '2026-01-03T00:00:00.000Z'),
  box('db', 'running', { team: 'red', tier: 'data' }, '2026-01-01T00:00:00.000Z'),
];
const names = (list: Box[]) => list.map((b) => b.name);

test('search, status, tag and sort', () => {
  assert.deepEqual(names(applyFilters(boxes, NO_FILTERS)), ['api', 'db', 'web']);
  assert.deepEqual(names(applyFilters(boxes, { ...NO_FILTERS, search: 'WE' })), ['web']);
  assert.deepEqual(names(applyFilters(boxes, { ...NO_FILTERS, search: 'tier:da' })), ['db']);
  assert.deepEqual(names(applyFilters(boxes, { ...NO_FILTERS, status: 'running' })), ['db', 'web']);
  assert.deepEqual(names(applyFilters(boxes, { ...NO_FILTERS, tag: 'team:red' })), ['api', 'db']);
  assert.deepEqual(names(applyFilters(boxes, { ...NO_FILTERS, sort: 'created_at', descending: true })), [
    'api',
    'web',
    'db',
  ]);
  assert.deepEqual(tagsOf(boxes), ['team:blue', 'team:red', 'tier:data']);
});
