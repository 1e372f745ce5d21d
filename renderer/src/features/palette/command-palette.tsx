import { Spotlight, type SpotlightActionData } from '@mantine/spotlight';
import { IconBox, IconPlus, IconSearch, IconSettings, IconTerminal2 } from '@tabler/icons-react';
import { useMemo } from 'react';
import { useNavigate } from 'react-router';
import { useBoxes } from '../../api/boxes';
import { SIDEBAR_PAGES } from '../../app/pages';
import { paths, useProject } from '../../app/project';

/** Ctrl/Cmd+K: jump to a box, open a console in one, create one, go to a page. */
export function CommandPalette() {
  const project = useProject();
  const boxes = useBoxes(project);
  const navigate = useNavigate();
  const actions = useMemo<SpotlightActionData[]>(() => {
    const go = (to: string) => () => void navigate(to);
    const out: SpotlightActionData[] = [
      {
        id: 'create',
        label: 'Create a box',
        description: `in ${project}`,
        leftSection: <IconPlus size={18} />,
        onClick: go(`${paths.boxes(project)}?create=1`),
      },
      ...SIDEBAR_PAGES.map((p) => ({
        id: `page:${p.label}`,
        label: `Go to ${p.label}`,
        leftSection: p.label === 'Settings' ? <IconSettings size={18} /> : <p.icon size={18} />,
        onClick: go(p.href(project)),
      })),
    ];
    for (const b of boxes.data ?? []) {
      out.push({
        id: `box:${b.name}`,
        label: b.name,
        description: `${b.status} · open the box`,
        keywords: [b.id, 'open'],
        leftSection: <IconBox size={18} />,
        onClick: go(paths.box(project, b.name)),
      });
      if (b.status === 'running')
        out.push({
          id: `console:${b.name}`,
          label: `Console in ${b.name}`,
          keywords: ['console', 'terminal', 'shell'],
          leftSection: <IconTerminal2 size={18} />,
          onClick: go(paths.box(project, b.name, 'console')),
        });
    }
    return out;
  }, [boxes.data, navigate, project]);

  return (
    <Spotlight
      actions={actions}
      limit={40}
      shortcut={['mod + K']}
      nothingFound="Nothing matches"
      highlightQuery
      searchProps={{
        leftSection: <IconSearch size={18} />,
        placeholder: 'Jump to a box, open a console, create…',
        'aria-label': 'Command',
      }}
    />
  );
}
