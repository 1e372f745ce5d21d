import { useLocation } from 'react-router';

const KEY = 'boxdesk.projects';
const LAST_KEY = 'boxdesk.project';

/**
 * The project in the address, else the one used last, else `default`. Read
 * from the path (not route params) so the header, the sidebar and the
 * palette, which sit outside the routes, agree with the page.
 */
export function useProject(): string {
  const { pathname } = useLocation();
  const match = /^\/projects\/([^/]+)/.exec(pathname);
  return match ? decodeURIComponent(match[1]!) : lastProject();
}

export function lastProject(): string {
  return localStorage.getItem(LAST_KEY) ?? 'default';
}

/** Projects this window has used (the API has no project list: a project exists once it has a box). */
export function knownProjects(): string[] {
  try {
    const list = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(list) ? list.filter((p): p is string => typeof p === 'string') : [];
  } catch {
    return [];
  }
}

export function rememberProject(project: string): void {
  localStorage.setItem(LAST_KEY, project);
  addKnownProjects([project]);
}

/** Adds projects to the switcher's list (at most 50); true when one was new. */
export function addKnownProjects(projects: string[]): boolean {
  const list = knownProjects();
  const fresh = projects.filter((p, i) => !list.includes(p) && projects.indexOf(p) === i);
  if (fresh.length === 0) return false;
  localStorage.setItem(KEY, JSON.stringify([...list, ...fresh].sort().slice(0, 50)));
  return true;
}

/** The boxes' addresses, which every feature links to (each feature's own pages say their own). */
export const paths = {
  boxes: (project: string) => `/projects/${project}/boxes`,
  box: (project: string, name: string, tab = 'overview') => `/projects/${project}/boxes/${name}/${tab}`,
};
