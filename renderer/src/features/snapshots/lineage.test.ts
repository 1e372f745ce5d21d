import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Snapshot } from '../../../../shared/schemas/snapshots';
import { buildLineage, type LineageNode } from './lineage';

const snap = (id: string, box: string, parent_id: string | null, minute: number): Snapshot => ({
  id,
  name: id,
  project: 'p',
  box,
  box_id: `box_${box}`,
  created_at: `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`,
  size_bytes: 1,
  parent_id,
});

/** The tree as nested strings, for comparing shapes. */
function shape(nodes: LineageNode[]): unknown[] {
  return nodes.map((n) =>
    n.kind === 'box'
      ? `box:${n.box.name}${n.current ? '*' : ''}`
      : n.kind === 'base'
        ? { [`base:${n.name}`]: shape(n.children) }
        : { [`snap:${n.snapshot.id}`]: shape(n.children) },
  );
}

test("a box's snapshots hang from its base, with forks under the snapshot they came from and the box under what it was restored from", () => {
  const snaps = [
    snap('a', 'web', 'default', 1),
    snap('b', 'web', 'a', 2),
    snap('c', 'web', 'a', 3),
    snap('x', 'other', 'default', 4),
  ];
  const web = { id: 'box_web', name: 'web', status: 'running' as const, base: 'default', origin: 'a' };
  const boxes = [
    web,
    { name: 'fork1', status: 'running' as const, origin: 'b' },
    { name: 'unrelated', status: 'running' as const, origin: 'x' },
  ];
  assert.deepEqual(shape(buildLineage(web, snaps, boxes)), [
    { 'base:default': [{ 'snap:a': [{ 'snap:b': ['box:fork1'] }, { 'snap:c': [] }, 'box:web*'] }] },
  ]);
});

test("a fork's lineage reaches up through the other box's snapshots to the base", () => {
  const snaps = [snap('a', 'web', 'default', 1), snap('f1', 'fork', 'a', 2)];
  const fork = { id: 'box_fork', name: 'fork', status: 'stopped' as const, base: null, origin: 'a' };
  assert.deepEqual(shape(buildLineage(fork, snaps, [fork])), [
    { 'base:default': [{ 'snap:a': [{ 'snap:f1': [] }, 'box:fork*'] }] },
  ]);
});

test('a box without snapshots is alone under its base', () => {
  const box = { id: 'box_new', name: 'new', status: 'running' as const, base: 'default', origin: null };
  assert.deepEqual(shape(buildLineage(box, [snap('x', 'other', 'default', 1)], [box])), [
    { 'base:default': ['box:new*'] },
  ]);
});

test('the snapshots of a deleted box are not those of a new box of the same name', () => {
  const gone = { ...snap('old', 'web', 'default', 1), box_id: 'box_deleted' };
  const web = { id: 'box_web2', name: 'web', status: 'running' as const, base: 'default', origin: null };
  assert.deepEqual(shape(buildLineage(web, [gone], [web])), [{ 'base:default': ['box:web*'] }]);
});
