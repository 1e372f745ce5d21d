import { Anchor, Breadcrumbs, Text } from '@mantine/core';
import { pathCrumbs } from './box-paths';

/** The path as buttons, one per folder; the last is where you are. */
export function PathCrumbs({ path, onNavigate }: { path: string; onNavigate(path: string): void }) {
  const crumbs = pathCrumbs(path);
  return (
    <nav aria-label="Path in the box">
      <Breadcrumbs separator="›" separatorMargin={6} style={{ flexWrap: 'wrap' }}>
        {crumbs.map((c, i) =>
          i === crumbs.length - 1 ? (
            <Text key={c.path} fw={600} size="sm" aria-current="location" ff="monospace">
              {c.label}
            </Text>
          ) : (
            <Anchor
              key={c.path}
              component="button"
              type="button"
              size="sm"
              ff="monospace"
              onClick={() => onNavigate(c.path)}
              aria-label={c.path === '/' ? 'Root folder /' : `Folder ${c.path}`}
            >
              {c.label}
            </Anchor>
          ),
        )}
      </Breadcrumbs>
    </nav>
  );
}
