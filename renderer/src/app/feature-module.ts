import type { SpotlightActionData } from '@mantine/spotlight';
import type { Icon } from '@tabler/icons-react';
import type { ComponentType, ReactNode } from 'react';
import type { Box } from '../../../shared/schemas/box';
import type { EventRules } from '../api/event-rules';

/** A page in the sidebar; its "Go to …" action in the palette comes with it. */
export interface SidebarPage {
  label: string;
  icon: Icon;
  /** The route pattern (react-router). */
  route: string;
  /** Where the link goes for the current project. */
  href(project: string): string;
  element: ReactNode;
}

/** A route that is not in the sidebar (a box's page). */
export interface RoutePage {
  route: string;
  element: ReactNode;
}

export interface DetailTabProps {
  box: Box;
}

/** A tab of a box's page; `value` is the last part of the address (`#/projects/p/boxes/web/console`). */
export interface DetailTab {
  value: string;
  label: string;
  icon: Icon;
  Component: ComponentType<DetailTabProps>;
}

export interface PaletteContext {
  project: string;
  /** An action's onClick that opens the address. */
  go(to: string): () => void;
}

/**
 * What a feature adds to the window. Each feature exports one from its
 * folder's index, and `app/features.ts` lists them: adding a feature touches
 * its folder and that list.
 */
export interface FeatureModule {
  name: string;
  /** Sidebar pages, in order. */
  pages?: SidebarPage[];
  routes?: RoutePage[];
  /** Tabs of a box's page, in order. */
  tabs?: DetailTab[];
  /** A hook (called on every render of the palette, so it may read queries) giving the feature's palette actions. */
  usePaletteActions?(context: PaletteContext): SpotlightActionData[];
  /** How the feature's event types patch or invalidate its queries. */
  events?: EventRules;
}
