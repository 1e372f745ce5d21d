import { ActionIcon, Code, CopyButton, Group, Text, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import type { DetailTabProps } from '../../app/feature-module';
import { DetailsTable, type DetailRow } from '../../kit/details-table';
import { Time } from '../../kit/time';
import { lifecycleText } from './lifecycle-form';
import { networkText } from './network-fields';

function mapText(map: Record<string, string>): ReactNode {
  const entries = Object.entries(map);
  if (entries.length === 0) return <Text c="dimmed">none</Text>;
  return <Code block>{entries.map(([k, v]) => `${k}=${v}`).join('\n')}</Code>;
}

/** Every field of the box's representation. */
export function OverviewTab({ box }: DetailTabProps) {
  const rows: DetailRow[] = [
    [
      'Id',
      <Group gap={4} key="id">
        <Code>{box.id}</Code>
        <CopyButton value={box.id}>
          {({ copied, copy }) => (
            <Tooltip label={copied ? 'Copied' : 'Copy the id'}>
              <ActionIcon variant="subtle" aria-label="Copy the id" onClick={copy} color={copied ? 'green' : undefined}>
                {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
              </ActionIcon>
            </Tooltip>
          )}
        </CopyButton>
      </Group>,
    ],
    ['Name', box.name],
    ['Project', box.project],
    ['Status', box.status],
    ['Status reason', box.status_reason ?? '—'],
    ['Base', box.base ?? '— (a fork)'],
    ['CPUs', box.config.cpus],
    ['Memory', `${box.config.ram_mb} MiB`],
    [
      'Storage',
      `${box.config.storage_gb} GiB${box.storage_enforced ? '' : ' (recorded, not enforced by this engine)'}`,
    ],
    ['Region', box.config.region],
    ['Environment', mapText(box.environment)],
    ['Network', networkText(box.network, box.secrets)],
    ['Tags', mapText(box.tags)],
    [
      'Data mounts',
      box.data_mounts?.length
        ? box.data_mounts.map((m) => `${m.name} → ${m.path}${m.read_only ? ' (read-only)' : ''}`).join(', ')
        : '—',
    ],
    ['Port', box.port ?? '—'],
    ['URL', box.url ?? '— (not published)'],
    ['URL access', box.url_settings?.auth ?? '—'],
    ['Published domains', box.published_domains?.join(', ') || '—'],
    [
      'Stop grace period',
      box.termination_grace_period_seconds === null ? '10 s (default)' : `${box.termination_grace_period_seconds} s`,
    ],
    ['Lifecycle', lifecycleText(box) ?? '— (never pauses, stops or is deleted by itself)'],
    [
      'Next change',
      box.next_change ? (
        <span key="next">
          {box.next_change.action} ({box.next_change.reason}) <Time at={box.next_change.at} relative />
        </span>
      ) : (
        '—'
      ),
    ],
    ['Last used', box.last_used_at ? <Time key="used" at={box.last_used_at} relative /> : '—'],
    ['Created', <Time key="created" at={box.created_at} />],
    ['Updated', <Time key="updated" at={box.updated_at} />],
  ];
  return <DetailsTable aria-label="Box details" withRowBorders maw={900} rows={rows} />;
}
