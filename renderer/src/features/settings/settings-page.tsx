import {
  Code,
  Paper,
  SegmentedControl,
  Stack,
  Text,
  Title,
  useMantineColorScheme,
  type MantineColorScheme,
} from '@mantine/core';
import type { SystemInfo } from '../../../../shared/schemas/system';
import { useSystem } from '../../api/system';
import { DetailsTable, type DetailRow } from '../../kit/details-table';
import { formatBytes } from '../../kit/format';
import { options } from '../../kit/options';
import { QueryStates } from '../../kit/query-states';
import { PoolsPanel } from './pools-panel';
import { SecretsPanel } from './secrets-panel';
import { RegionsPanel } from './regions-panel';
import { StoragePanel } from './storage-panel';
import { TokensPanel } from './tokens-panel';

/** The core's data dir and the engine's capacity, as rows. */
function engineRows(s: SystemInfo): DetailRow[] {
  const storage = s.engine.storage_limit;
  return [
    ['Core version', s.version],
    ['Data directory', <Code key="data-dir">{s.data_dir}</Code>],
    [
      'Engine',
      `${s.engine.name} ${s.engine.version ?? ''}${s.engine.api_version ? ` (API ${s.engine.api_version})` : ''}`,
    ],
    [
      'Engine at',
      <span key="endpoint">
        <Code>{s.engine.endpoint.url}</Code> (found by {s.engine.endpoint.found_by})
      </span>,
    ],
    ['Engine state', s.engine.up ? 'reachable' : 'unreachable'],
    ['CPUs', s.engine.cpus === null ? '—' : String(s.engine.cpus)],
    ['Memory', formatBytes(s.engine.memory_bytes)],
    ['Storage limits', storage === null ? '—' : storage ? 'enforced' : 'recorded, not enforced by this engine'],
    [
      'Box agent',
      s.agent.available
        ? `in every new box (version ${s.agent.version}): exec, consoles, jobs and files skip the engine`
        : `not used: ${s.agent.reason ?? 'unknown'}`,
    ],
    [
      'Preview proxy',
      s.proxy_edge.available
        ? `the edge (version ${s.proxy_edge.version}) serves published boxes natively: ${s.proxy_edge.requests} requests so far`
        : `the core serves it alone: ${s.proxy_edge.reason ?? 'unknown'}`,
    ],
  ];
}

function EnginePanel() {
  const system = useSystem();
  return (
    <QueryStates query={system} what="the core's settings">
      {(s) => <DetailsTable aria-label="Engine and data" maw={720} rows={engineRows(s)} />}
    </QueryStates>
  );
}

export function SettingsPage() {
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  return (
    <Stack gap="lg" maw={960}>
      <Title order={2}>Settings</Title>
      <Paper withBorder p="md" component="section" aria-labelledby="appearance-heading">
        <Title order={3} size="h4" id="appearance-heading" mb="xs">
          Appearance
        </Title>
        <Text size="sm" id="theme-label" mb={4}>
          Theme
        </Text>
        <SegmentedControl
          aria-labelledby="theme-label"
          value={colorScheme}
          onChange={(v) => setColorScheme(v as MantineColorScheme)}
          data={options({ auto: 'Follow the system', light: 'Light', dark: 'Dark' })}
        />
      </Paper>
      <Paper withBorder p="md" component="section" aria-labelledby="engine-heading">
        <Title order={3} size="h4" id="engine-heading" mb="xs">
          Engine and data
        </Title>
        <EnginePanel />
      </Paper>
      <Paper withBorder p="md" component="section" aria-labelledby="regions-heading">
        <Title order={3} size="h4" id="regions-heading" mb="xs">
          Regions
        </Title>
        <RegionsPanel />
      </Paper>
      <Paper withBorder p="md" component="section" aria-labelledby="storage-heading">
        <Title order={3} size="h4" id="storage-heading" mb="xs">
          Copy-on-write store
        </Title>
        <StoragePanel />
      </Paper>
      <Paper withBorder p="md" component="section" aria-labelledby="pools-heading">
        <Title order={3} size="h4" id="pools-heading" mb="xs">
          Warm pools
        </Title>
        <PoolsPanel />
      </Paper>
      <Paper withBorder p="md" component="section" aria-labelledby="tokens-heading">
        <TokensPanel headingId="tokens-heading" />
      </Paper>
      <Paper withBorder p="md" component="section" aria-labelledby="secrets-heading">
        <SecretsPanel headingId="secrets-heading" />
      </Paper>
    </Stack>
  );
}
