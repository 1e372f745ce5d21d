import { useCallback, useState } from 'react';

/** A console tab: a stable key, and the server's session id once it is known. */
export interface ConsoleEntry {
  key: string;
  session: string | null;
}

const storageKey = (project: string, box: string) => `boxdesk.consoles.${project}.${box}`;

function load(project: string, box: string): ConsoleEntry[] {
  try {
    const value = JSON.parse(sessionStorage.getItem(storageKey(project, box)) ?? '[]') as unknown;
    if (Array.isArray(value) && value.length > 0) return value as ConsoleEntry[];
  } catch {
    // A damaged entry is replaced by a fresh console.
  }
  return [];
}

function save(project: string, box: string, entries: ConsoleEntry[]): void {
  sessionStorage.setItem(storageKey(project, box), JSON.stringify(entries));
}

let counter = 0;
const newKey = () => `c${Date.now().toString(36)}${(counter++).toString(36)}`;

/**
 * The console tabs of one box, kept in sessionStorage with their session ids,
 * so coming back to the tab or reloading the window reattaches (and replays).
 */
export function useConsoleSessions(project: string, box: string) {
  const [entries, setEntries] = useState<ConsoleEntry[]>(() => {
    const loaded = load(project, box);
    if (loaded.length) return loaded;
    const fresh = [{ key: newKey(), session: null }];
    save(project, box, fresh);
    return fresh;
  });
  const update = useCallback(
    (fn: (prev: ConsoleEntry[]) => ConsoleEntry[]) =>
      setEntries((prev) => {
        const next = fn(prev);
        save(project, box, next);
        return next;
      }),
    [project, box],
  );
  return {
    entries,
    add: () => {
      const key = newKey();
      update((prev) => [...prev, { key, session: null }]);
      return key;
    },
    remove: (key: string) => update((prev) => prev.filter((e) => e.key !== key)),
    setSession: (key: string, session: string) =>
      update((prev) => prev.map((e) => (e.key === key ? { ...e, session } : e))),
    /** A new session in the same tab, after one ended. */
    renew: (key: string) => {
      const fresh = newKey();
      update((prev) => prev.map((e) => (e.key === key ? { key: fresh, session: null } : e)));
      return fresh;
    },
  };
}
