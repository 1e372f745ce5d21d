import { IconFolders } from '@tabler/icons-react';
import { lazy } from 'react';
import type { FeatureModule } from '../../app/feature-module';

const FilesTab = lazy(() => import('./files-tab').then((m) => ({ default: m.FilesTab })));

/** There is no file event on the stream: listings refresh after this window's own writes and on Refresh. */
export const files: FeatureModule = {
  name: 'files',
  tabs: [{ value: 'files', label: 'Files', icon: IconFolders, Component: FilesTab }],
};
