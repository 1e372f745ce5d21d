import type { Box } from '../../../../shared/schemas/box';
import type { Snapshot } from '../../../../shared/schemas/snapshots';

export type LineageNode =
  | { kind: 'base'; name: string; children: LineageNode[] }
  | { kind: 'snapshot'; snapshot: Snapshot; children: LineageNode[] }
  | { kind: 'box'; box: Pick<Box, 'name' | 'status'>; current: boolean };

const byCreated = (a: Snapshot, b: Snapshot) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);

/**
 * The lineage of one box as a forest: the box's snapshots and the snapshot
 * it was forked or restored from, their ancestors up to the base, and under
 * each snapshot the boxes whose root comes from it (forks, restores). Roots
 * are bases (a parent_id that is not a snapshot of the project).
 */
export function buildLineage(
  box: Pick<Box, 'id' | 'name' | 'status' | 'base' | 'origin'>,
  snapshots: Snapshot[],
  boxes: Pick<Box, 'name' | 'status' | 'origin'>[],
): LineageNode[] {
  const byId = new Map(snapshots.map((s) => [s.id, s]));
  const included = new Set<string>();
  // By id: the snapshots of a deleted box of the same name are not this box's.
  const seeds = snapshots.filter((s) => s.box_id === box.id).map((s) => s.id);
  if (box.origin && byId.has(box.origin)) seeds.push(box.origin);
  for (const seed of seeds) {
    // Up the parents until a base (or a snapshot already seen).
    for (let id: string | null = seed; id && byId.has(id) && !included.has(id); id = byId.get(id)!.parent_id)
      included.add(id);
  }

  const nodes = new Map<string, Extract<LineageNode, { kind: 'snapshot' }>>();
  for (const s of [...included].map((id) => byId.get(id)!).sort(byCreated))
    nodes.set(s.id, { kind: 'snapshot', snapshot: s, children: [] });
  const roots = new Map<string, Extract<LineageNode, { kind: 'base' }>>();
  const root = (name: string) => {
    let r = roots.get(name);
    if (!r) roots.set(name, (r = { kind: 'base', name, children: [] }));
    return r;
  };
  for (const node of nodes.values()) {
    const parent = node.snapshot.parent_id;
    (parent && nodes.has(parent) ? nodes.get(parent)!.children : root(parent ?? 'unknown base').children).push(node);
  }

  const others = boxes.filter((b) => b.name !== box.name).sort((a, b) => a.name.localeCompare(b.name));
  for (const b of others)
    if (b.origin && nodes.has(b.origin)) nodes.get(b.origin)!.children.push({ kind: 'box', box: b, current: false });
  const self: LineageNode = { kind: 'box', box, current: true };
  if (box.origin && nodes.has(box.origin)) nodes.get(box.origin)!.children.push(self);
  else root(box.base ?? 'unknown base').children.push(self);
  return [...roots.values()];
}
