import { useEffect, useState } from 'react';
import type { Box } from '../../../../shared/schemas/box';

/** The boxes ticked in the list: never a box that is gone, emptied when the project changes. */
export function useSelection(project: string, all: Box[]) {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  useEffect(() => {
    setSelected((prev) => {
      const names = new Set(all.map((b) => b.name));
      const next = new Set([...prev].filter((n) => names.has(n)));
      return next.size === prev.size ? prev : next;
    });
  }, [all]);
  useEffect(() => setSelected(new Set()), [project]);

  const select = (names: string[], on: boolean) =>
    setSelected((prev) => {
      const next = new Set(prev);
      for (const n of names)
        if (on) next.add(n);
        else next.delete(n);
      return next;
    });
  return { selected, select, clear: () => setSelected(new Set()) };
}
