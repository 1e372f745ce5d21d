import { SegmentedControl, Stack, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { Suspense, lazy, useCallback, useRef, useState } from 'react';
import type { FileStat } from '../../../../shared/schemas/files';
import { useFileTransfers } from '../../api/files';
import { describeError } from '../../api/session';
import { notifyDone } from '../../app/notify';
import type { DetailTabProps } from '../boxes/detail-tabs';
import { parentPath, resolveLink } from './box-paths';
import { ChangesView } from './changes-view';
import { FileBrowser } from './file-browser';
import { PathCrumbs } from './path-crumbs';

// CodeMirror loads when a file is first opened, not with the tab.
const FileEditor = lazy(() => import('./file-editor').then((m) => ({ default: m.FileEditor })));

type View = 'browse' | 'changes';

/**
 * A box's files, running or stopped: browse, upload, download, delete, new
 * folder, view and edit text files, and what changed since the base.
 */
export function FilesTab({ box }: DetailTabProps) {
  const { project, name } = box;
  const transfers = useFileTransfers(project, name);
  const [view, setView] = useState<View>('browse');
  const [dir, setDir] = useState('/');
  const [file, setFile] = useState<FileStat | null>(null);
  const dirty = useRef(false);
  const setDirty = useCallback((d: boolean) => {
    dirty.current = d;
  }, []);

  /** Runs `go` now, or after the user agrees to drop the editor's unsaved changes. */
  const guard = useCallback((go: () => void) => {
    if (!dirty.current) return go();
    modals.openConfirmModal({
      title: 'Discard unsaved changes?',
      children: (
        <Text size="sm">
          The open file has changes that are not saved in the box. Save them first (Ctrl+S), or discard them.
        </Text>
      ),
      labels: { confirm: 'Discard changes', cancel: 'Keep editing' },
      confirmProps: { color: 'red' },
      onConfirm: () => {
        dirty.current = false;
        go();
      },
    });
  }, []);

  const browse = useCallback(
    (path: string) =>
      guard(() => {
        setFile(null);
        setView('browse');
        setDir(path);
      }),
    [guard],
  );

  /** Opens whatever is at `path`: a directory is browsed, a file edited, a symlink followed. */
  const open = useCallback(
    (path: string) =>
      guard(() => {
        void (async () => {
          try {
            let stat = await transfers.stat(path);
            for (let hops = 0; stat.type === 'symlink' && stat.link_target && hops < 8; hops++)
              stat = await transfers.stat(resolveLink(parentPath(stat.path), stat.link_target));
            if (stat.type === 'dir') {
              setFile(null);
              setView('browse');
              setDir(stat.path);
            } else if (stat.type === 'file') {
              setView('browse');
              setDir(parentPath(stat.path));
              setFile(stat);
            } else
              notifyDone(
                `Cannot open ${path}`,
                stat.type === 'symlink'
                  ? 'The link points nowhere (or to a loop).'
                  : 'It is neither a file nor a folder (a device, socket or pipe).',
                false,
              );
          } catch (err) {
            notifyDone(`Cannot open ${path}`, describeError(err), false);
          }
        })();
      }),
    [guard, transfers],
  );

  return (
    <Stack gap="sm">
      <SegmentedControl
        aria-label="Files view"
        w="fit-content"
        value={view}
        onChange={(v) =>
          guard(() => {
            setFile(null);
            setView(v as View);
          })
        }
        data={[
          { value: 'browse', label: 'Browse' },
          { value: 'changes', label: 'Changed since base' },
        ]}
      />
      {view === 'changes' ? (
        <ChangesView project={project} name={name} onOpen={open} />
      ) : file ? (
        <Stack gap="xs">
          <PathCrumbs path={file.path} onNavigate={browse} />
          <Suspense fallback={<Text role="status">Loading the editor…</Text>}>
            <FileEditor
              key={file.path}
              project={project}
              name={name}
              file={file}
              onDirtyChange={setDirty}
              onClose={() => browse(parentPath(file.path))}
            />
          </Suspense>
        </Stack>
      ) : (
        <FileBrowser project={project} name={name} dir={dir} onNavigate={browse} onOpen={open} />
      )}
    </Stack>
  );
}
