import type { Box, BoxStatus } from '../../../../shared/schemas/box';

export type SortKey = 'name' | 'status' | 'created_at' | 'updated_at';

export interface ListFilters {
  search: string;
  status: BoxStatus | null;
  /** `key:value` */
  tag: string | null;
  sort: SortKey;
  descending: boolean;
}

export const NO_FILTERS: ListFilters = { search: '', status: null, tag: null, sort: 'name', descending: false };

export function tagsOf(boxes: Box[]): string[] {
  const set = new Set<string>();
  for (const b of boxes) for (const [k, v] of Object.entries(b.tags)) set.add(`${k}:${v}`);
  return [...set].sort();
}

/** What the list shows: search over name, id, base and tags; one status; one tag; one sort. */
export function applyFilters(boxes: Box[], f: ListFilters): Box[] {
  const q = f.search.trim().toLowerCase();
  const [tagKey, tagValue] = f.tag
    ? [f.tag.slice(0, f.tag.indexOf(':')), f.tag.slice(f.tag.indexOf(':') + 1)]
    : [null, null];
  const out = boxes.filter((b) => {
    if (f.status && b.status !== f.status) return false;
    if (tagKey !== null && b.tags[tagKey] !== tagValue) return false;
    if (!q) return true;
    return (
      b.name.includes(q) ||
      b.id.toLowerCase().includes(q) ||
      (b.base ?? '').includes(q) ||
      Object.entries(b.tags).some(([k, v]) => `${k}:${v}`.toLowerCase().includes(q))
    );
  });
  const dir = f.descending ? -1 : 1;
  out.sort((a, b) => {
    const x = a[f.sort] ?? '';
    const y = b[f.sort] ?? '';
    return (x < y ? -1 : x > y ? 1 : a.name < b.name ? -1 : 1) * dir;
  });
  return out;
}
