import {
  Alert,
  Code,
  Paper,
  SegmentedControl,
  Stack,
  Table,
  Text,
  Title,
  useMantineColorScheme,
  type MantineColorScheme,
} from '@mantine/core';
import { describeError } from '../../api/session';
import { useSystem } from '../../api/system';
import { StoragePanel } from './storage-panel';
import { TokensPanel } from './tokens-panel';

function EnginePanel() {
  const system = useSystem();
  if (system.isError)
    return (
      <Alert color="red" role="alert" title="Could not read the core's settings">
        {describeError(system.error)}
      </Alert>
    );
  const s = system.data;
  const rows: [string, string][] = s
    ? [
        ['Core version', s.version],
        ['Data directory', s.data_dir],
        [
          'Engine',
          `${s.engine.name} ${s.engine.version ?? ''}${s.engine.api_version ? ` (API ${s.engine.api_version})` : ''}`,
        ],
        ['Engine state', s.engine.up ? 'reachable' : 'unreachable'],
        ['CPUs', s.engine.cpus === null ? '—' : String(s.engine.cpus)],
        ['Memory', s.engine.memory_bytes === null ? '—' : `${(s.engine.memory_bytes / 1024 ** 3).toFixed(1)} GiB`],
        [
          'Storage limits',
          s.engine.storage_limit === null
            ? '—'
            : s.engine.storage_limit
              ? 'enforced'
              : 'recorded, not enforced by this engine',
        ],
      ]
    : [];
  return (
    <Table aria-label="Engine and data" variant="vertical" layout="fixed" maw={720}>
      <Table.Tbody>
        {rows.map(([k, v]) => (
          <Table.Tr key={k}>
            <Table.Th w={180} scope="row">
              {k}
            </Table.Th>
            <Table.Td>{k === 'Data directory' ? <Code>{v}</Code> : v}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
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
          data={[
            { value: 'auto', label: 'Follow the system' },
            { value: 'light', label: 'Light' },
            { value: 'dark', label: 'Dark' },
          ]}
        />
      </Paper>
      <Paper withBorder p="md" component="section" aria-labelledby="engine-heading">
        <Title order={3} size="h4" id="engine-heading" mb="xs">
          Engine and data
        </Title>
        <EnginePanel />
      </Paper>
      <Paper withBorder p="md" component="section" aria-labelledby="storage-heading">
        <Title order={3} size="h4" id="storage-heading" mb="xs">
          Copy-on-write store
        </Title>
        <StoragePanel />
      </Paper>
      <Paper withBorder p="md" component="section" aria-labelledby="tokens-heading">
        <TokensPanel headingId="tokens-heading" />
      </Paper>
    </Stack>
  );
}
