import { useCallback, useEffect, useRef, useState } from 'react';
import type { FileStat } from '../../../../shared/schemas/files';
import { describeError } from '../../api/session';
import { notifyDone } from '../../app/notify';
import { confirmDestroy } from '../../kit/confirm-destroy';
import { parentPath, resolveLink } from './box-paths';
import { useFileTransfers } from './use-files';

export type FilesView = 'browse' | 'changes';

/** Every box's working directory (on the copy-on-write store). */
const WORKSPACE = '/workspace';

/** Follows a symlink (at most 8 hops) to what it names. */
async function follow(transfers: ReturnType<typeof useFileTransfers>, path: string): Promise<FileStat> {
  let stat = await transfers.stat(path);
  for (let hops = 0; stat.type === 'symlink' && stat.link_target && hops < 8; hops++)
    stat = await transfers.stat(resolveLink(parentPath(stat.path), stat.link_target));
  return stat;
}

/**
 * Where the Files tab is: the view, the folder, the open file. Leaving a file
 * with unsaved changes asks first.
 */
export function useFileNavigation(project: string, name: string) {
  const transfers = useFileTransfers(project, name);
  const [view, setView] = useState<FilesView>('browse');
  // Where exec and console start; a box without it (made before the store, its base lacking it) opens at /.
  const [dir, setDir] = useState(WORKSPACE);
  useEffect(() => {
    transfers.stat(WORKSPACE).then(
      (stat) => stat.type !== 'dir' && setDir((d) => (d === WORKSPACE ? '/' : d)),
      () => setDir((d) => (d === WORKSPACE ? '/' : d)),
    );
  }, []);
  const [file, setFile] = useState<FileStat | null>(null);
  const dirty = useRef(false);
  const setDirty = useCallback((d: boolean) => {
    dirty.current = d;
  }, []);

  /** Runs `go` now, or after the user agrees to drop the editor's unsaved changes. */
  const guard = useCallback((go: () => void) => {
    if (!dirty.current) return go();
    confirmDestroy({
      title: 'Discard unsaved changes?',
      goes: 'The open file has changes that are not saved in the box.',
      affects: 'Save them first (Ctrl+S), or discard them.',
      confirm: 'Discard changes',
      cancel: 'Keep editing',
      run: () => {
        dirty.current = false;
      },
      onDone: go,
    });
  }, []);

  const show = (next: { view?: FilesView; dir?: string; file?: FileStat | null }) => {
    setView(next.view ?? 'browse');
    if (next.dir !== undefined) setDir(next.dir);
    setFile(next.file ?? null);
  };
  const browse = useCallback((path: string) => guard(() => show({ dir: path })), [guard]);

  /** Opens whatever is at `path`: a directory is browsed, a file edited, a symlink followed. */
  const open = (path: string) =>
    guard(() => {
      follow(transfers, path)
        .then((stat) => {
          if (stat.type === 'dir') show({ dir: stat.path });
          else if (stat.type === 'file') show({ dir: parentPath(stat.path), file: stat });
          else
            notifyDone(
              `Cannot open ${path}`,
              stat.type === 'symlink'
                ? 'The link points nowhere (or to a loop).'
                : 'It is neither a file nor a folder (a device, socket or pipe).',
              false,
            );
        })
        .catch((err: unknown) => notifyDone(`Cannot open ${path}`, describeError(err), false));
    });

  const switchView = (v: FilesView) => guard(() => show({ view: v }));
  return { view, dir, file, setDirty, browse, open, switchView };
}
