import { SegmentedControl, Stack, Text } from '@mantine/core';
import { Suspense, lazy } from 'react';
import type { DetailTabProps } from '../../app/feature-module';
import { options } from '../../kit/options';
import { parentPath } from './box-paths';
import { ChangesView } from './changes-view';
import { FileBrowser } from './file-browser';
import { PathCrumbs } from './path-crumbs';
import { useFileNavigation, type FilesView } from './use-file-navigation';

// CodeMirror loads when a file is first opened, not with the tab.
const FileEditor = lazy(() => import('./file-editor').then((m) => ({ default: m.FileEditor })));

/**
 * A box's files, running or stopped: browse, upload, download, delete, new
 * folder, view and edit text files, and what changed since the base.
 */
export function FilesTab({ box }: DetailTabProps) {
  const { project, name } = box;
  const nav = useFileNavigation(project, name);
  const { file } = nav;

  return (
    <Stack gap="sm">
      <SegmentedControl
        aria-label="Files view"
        w="fit-content"
        value={nav.view}
        onChange={(v) => nav.switchView(v as FilesView)}
        data={options({ browse: 'Browse', changes: 'Changed since base' })}
      />
      {nav.view === 'changes' ? (
        <ChangesView project={project} name={name} onOpen={nav.open} />
      ) : file ? (
        <Stack gap="xs">
          <PathCrumbs path={file.path} onNavigate={nav.browse} />
          <Suspense fallback={<Text role="status">Loading the editor…</Text>}>
            <FileEditor
              key={file.path}
              project={project}
              name={name}
              file={file}
              onDirtyChange={nav.setDirty}
              onClose={() => nav.browse(parentPath(file.path))}
            />
          </Suspense>
        </Stack>
      ) : (
        <FileBrowser project={project} name={name} dir={nav.dir} onNavigate={nav.browse} onOpen={nav.open} />
      )}
    </Stack>
  );
}
