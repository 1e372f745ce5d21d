import { createContext, useContext } from 'react';
import type { EventRules } from '../api/event-rules';
import type { DetailTab, FeatureModule, PaletteContext, RoutePage, SidebarPage } from './feature-module';

/** What the shell reads from the feature modules, in their order. */
export interface Registry {
  pages: SidebarPage[];
  routes: RoutePage[];
  tabs: DetailTab[];
  paletteHooks: ((context: PaletteContext) => ReturnType<NonNullable<FeatureModule['usePaletteActions']>>)[];
  events: EventRules[];
}

export function buildRegistry(modules: readonly FeatureModule[]): Registry {
  const names = new Set<string>();
  const values = new Set<string>();
  for (const m of modules) {
    if (names.has(m.name)) throw new Error(`two feature modules are named ${m.name}`);
    names.add(m.name);
    for (const t of m.tabs ?? []) {
      if (values.has(t.value)) throw new Error(`two box tabs are named ${t.value}`);
      values.add(t.value);
    }
  }
  return {
    pages: modules.flatMap((m) => m.pages ?? []),
    routes: modules.flatMap((m) => m.routes ?? []),
    tabs: modules.flatMap((m) => m.tabs ?? []),
    paletteHooks: modules.flatMap((m) => (m.usePaletteActions ? [m.usePaletteActions] : [])),
    events: modules.flatMap((m) => (m.events ? [m.events] : [])),
  };
}

const EMPTY: Registry = { pages: [], routes: [], tabs: [], paletteHooks: [], events: [] };

export const RegistryContext = createContext<Registry>(EMPTY);

/** The registry the app was started with (features read the tabs of a box's page from it). */
export function useRegistry(): Registry {
  return useContext(RegistryContext);
}
