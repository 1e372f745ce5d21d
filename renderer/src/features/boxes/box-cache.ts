import type { QueryClient } from '@tanstack/react-query';
import type { Box } from '../../../../shared/schemas/box';

/** The boxes' queries: a project's list and each box's detail. */
export const boxKeys = {
  list: (project: string) => ['boxes', project] as const,
  detail: (project: string, name: string) => ['box', project, name] as const,
};

/** Puts boxes (from an answer or an event) into the list and detail caches, in one pass per project. */
export function upsertBoxes(qc: QueryClient, boxes: Box[]): void {
  const byProject = new Map<string, Map<string, Box>>();
  for (const box of boxes) {
    let map = byProject.get(box.project);
    if (!map) byProject.set(box.project, (map = new Map()));
    map.set(box.name, box);
    qc.setQueryData(boxKeys.detail(box.project, box.name), box);
  }
  for (const [project, changed] of byProject) {
    qc.setQueryData<Box[]>(boxKeys.list(project), (old) => {
      if (!old) return old;
      const seen = new Set<string>();
      const next = old.map((b) => {
        const c = changed.get(b.name);
        if (!c) return b;
        seen.add(b.name);
        return c;
      });
      for (const [name, box] of changed) if (!seen.has(name)) next.push(box);
      return next;
    });
  }
}

export function removeBoxes(qc: QueryClient, boxes: Pick<Box, 'project' | 'name'>[]): void {
  const byProject = new Map<string, Set<string>>();
  for (const box of boxes) {
    let set = byProject.get(box.project);
    if (!set) byProject.set(box.project, (set = new Set()));
    set.add(box.name);
    qc.removeQueries({ queryKey: boxKeys.detail(box.project, box.name), exact: true });
  }
  for (const [project, gone] of byProject) {
    qc.setQueryData<Box[]>(boxKeys.list(project), (old) => old?.filter((b) => !gone.has(b.name)));
  }
}
