import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../../shared/schemas/box';
import { fieldOfPath } from './form-errors';
import { NO_FILTERS, applyFilters, tagsOf } from './list-filters';

const box = (name: string, status: Box['status'], tags: Record<string, string>, created: string): Box => ({
  id: `box_${name}`,
  name,
  project: 'p',
  status,
  status_reason: null,
  created_at: created,
  updated_at: created,
  base: 'default',
  config: { cpus: 1, ram_mb: 1024, region: 'local', storage_gb: 10, pids_limit: 1024 },
  storage_enforced: false,
  data_mounts: null,
  environment: {},
  port: null,
  published_domains: null,
  tags,
  termination_grace_period_seconds: null,
  url: null,
  url_settings: null,
});

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

test("a problem's errors[].path names the form field", () => {
  assert.equal(fieldOfPath('body.name'), 'name');
  assert.equal(fieldOfPath('body.config.cpus'), 'cpus');
  assert.equal(fieldOfPath('body.config.ram_mb'), 'ram_mb');
  assert.equal(fieldOfPath('body.environment.1X'), 'environment');
  assert.equal(fieldOfPath('body.tags'), 'tags');
  assert.equal(fieldOfPath('body.fork'), 'fork');
  assert.equal(fieldOfPath('query.limit'), null);
});
