import { IconBox, IconFolderUp, IconInfoCircle, IconPlus, IconTerminal2 } from '@tabler/icons-react';
import type { FeatureModule, PaletteContext } from '../../app/feature-module';
import { paths } from '../../app/project';
import { BoxDetailPage } from './box-detail-page';
import { boxEvents } from './box-events';
import { BoxListPage } from './box-list-page';
import { OverviewTab } from './overview-tab';
import { useBoxes } from './use-boxes';

/** Create a box, jump to one, open a console in a running one. */
function useBoxPaletteActions({ project, go }: PaletteContext) {
  const boxes = useBoxes(project);
  const create = {
    id: 'create',
    label: 'Create a box',
    description: `in ${project}`,
    leftSection: <IconPlus size={18} />,
    onClick: go(`${paths.boxes(project)}?create=1`),
  };
  const fromFolder = {
    id: 'from-folder',
    label: 'Box from folder',
    description: `a project folder (its devcontainer.json) in ${project}`,
    keywords: ['up', 'devcontainer'],
    leftSection: <IconFolderUp size={18} />,
    onClick: go(`${paths.boxes(project)}?create=folder`),
  };
  return [
    create,
    fromFolder,
    ...(boxes.data ?? []).flatMap((b) => [
      {
        id: `box:${b.name}`,
        label: b.name,
        description: `${b.status} · open the box`,
        keywords: [b.id, 'open'],
        leftSection: <IconBox size={18} />,
        onClick: go(paths.box(project, b.name)),
      },
      ...(b.status === 'running' || b.status === 'paused'
        ? [
            {
              id: `console:${b.name}`,
              label: `Console in ${b.name}`,
              keywords: ['console', 'terminal', 'shell'],
              leftSection: <IconTerminal2 size={18} />,
              onClick: go(paths.box(project, b.name, 'console')),
            },
          ]
        : []),
    ]),
  ];
}

export const boxes: FeatureModule = {
  name: 'boxes',
  pages: [
    { label: 'Boxes', icon: IconBox, route: '/projects/:project/boxes', href: paths.boxes, element: <BoxListPage /> },
  ],
  routes: [{ route: '/projects/:project/boxes/:name/:tab?', element: <BoxDetailPage /> }],
  tabs: [{ value: 'overview', label: 'Overview', icon: IconInfoCircle, Component: OverviewTab }],
  usePaletteActions: useBoxPaletteActions,
  events: boxEvents,
};
