import { Code, Text } from '@mantine/core';
import type { StorageInfo } from '../../../../shared/schemas/system';
import { useSystem } from '../../api/system';
import { DetailsTable, type DetailRow } from '../../kit/details-table';
import { formatBytes } from '../../kit/format';

const DRIVERS: Record<NonNullable<StorageInfo['driver']>, string> = {
  btrfs: 'btrfs on the host (copy-on-write, quotas)',
  'loop-btrfs': 'btrfs in an image under the data dir (copy-on-write, quotas)',
  reflink: 'reflink copies (copy-on-write, no quotas)',
  copy: 'plain copies (full copies, no quotas)',
};

/** The copy-on-write store, read-only: what GET /v1/system says of it. */
export function StoragePanel() {
  const s = useSystem().data?.storage;
  if (!s) return null;
  const rows: DetailRow[] = [
    ['Driver', s.driver ? DRIVERS[s.driver] : 'not started'],
    ['Path', s.path ? <Code>{s.path}</Code> : '—'],
    [
      'Space',
      s.size_bytes !== null && s.used_bytes !== null
        ? `${formatBytes(s.used_bytes)} of ${formatBytes(s.size_bytes)} used`
        : '—',
    ],
  ];
  return (
    <>
      <DetailsTable aria-label="Copy-on-write store" maw={720} rows={rows} />
      {s.reason && (
        <Text size="sm" c="dimmed" mt="xs">
          {s.driver ? 'Why not a better driver: ' : ''}
          {s.reason}
        </Text>
      )}
    </>
  );
}
