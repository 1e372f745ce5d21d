import { Spotlight, type SpotlightActionData } from '@mantine/spotlight';
import { IconSearch } from '@tabler/icons-react';
import { useNavigate } from 'react-router';
import type { PaletteContext } from './feature-module';
import { useProject } from './project';
import { useRegistry } from './registry';

/** Ctrl/Cmd+K: go to a page, and what each feature offers (jump to a box, open a console in one, create one…). */
export function CommandPalette() {
  const project = useProject();
  const navigate = useNavigate();
  const { pages, paletteHooks } = useRegistry();
  const context: PaletteContext = { project, go: (to) => () => void navigate(to) };
  const pageActions: SpotlightActionData[] = pages.map((p) => ({
    id: `page:${p.label}`,
    label: `Go to ${p.label}`,
    leftSection: <p.icon size={18} />,
    onClick: context.go(p.href(project)),
  }));
  // The hooks come from the modules, fixed at start, so each render calls the same ones in the same order.
  const featureActions = paletteHooks.flatMap((useActions) => useActions(context));

  return (
    <Spotlight
      actions={[...pageActions, ...featureActions]}
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
