import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_CONFIG } from '../../../../shared/schemas/box';
import { limitsDiffer, poolHostname, poolMisfit } from './pool-fit';

const plain = { command: false, config: DEFAULT_CONFIG, rootSizeEnforced: false };

test('a plain create of a base fits, whatever its name, limits, environment, tags or lifecycle', () => {
  assert.equal(poolMisfit({}, plain), null);
  assert.equal(poolMisfit({ data_mounts: [] }, plain), null);
  const config = { ...DEFAULT_CONFIG, cpus: 2, ram_mb: 256, pids_limit: 64, storage_gb: 3 };
  assert.equal(poolMisfit({}, { ...plain, config }), null, 'limits apply live; storage_gb is the workspace quota');
});

test('what is fixed when a container is made does not fit: a fork, data volumes, a main process, a root size', () => {
  assert.match(poolMisfit({ fork: 'other' }, plain) ?? '', /fork/);
  assert.match(poolMisfit({ data_mounts: [{ name: 'v', path: '/data' }] }, plain) ?? '', /data volumes/);
  assert.match(poolMisfit({}, { ...plain, command: true }) ?? '', /main process/);
  const bigger = { ...plain, rootSizeEnforced: true, config: { ...DEFAULT_CONFIG, storage_gb: 20 } };
  assert.match(poolMisfit({}, bigger) ?? '', /root filesystem size/);
  assert.equal(poolMisfit({}, { ...plain, rootSizeEnforced: true }), null, 'the default size is what the pool has');
});

test('limits differ when any of cpus, memory or pids does', () => {
  const base = { cpus: 1, ramMb: 1024, pidsLimit: 1024 };
  assert.equal(limitsDiffer(base, { ...base }), false);
  for (const change of [{ cpus: 2 }, { ramMb: 256 }, { pidsLimit: 64 }])
    assert.equal(limitsDiffer(base, { ...base, ...change }), true, JSON.stringify(change));
});

test("a pool container's hostname comes from the box id it will become", () => {
  assert.equal(poolHostname('box_abcdefgh234567abcdef'), 'box-abcdefgh');
});
