import { SegmentedControl, Select } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { fieldProps } from '../../kit/field-props';
import { formatTime } from '../../kit/format';
import { options } from '../../kit/options';
import { useVolumeBackups, useVolumeSnapshots, useVolumes } from './use-volumes';
import type { VolumeValues } from './volume-form';

const copyLabel = (c: { id: string; created_at: string }) => ({
  value: c.id,
  label: `${formatTime(c.created_at)} (${c.id})`,
});

/** What a new volume holds: nothing, a copy of a volume, or one of its snapshots or done backups. */
export function CloneSourceFields({
  form,
  project,
  opened,
}: {
  form: UseFormReturnType<VolumeValues>;
  project: string;
  opened: boolean;
}) {
  const { source, volume: from } = form.values;
  const volumes = useVolumes(project, opened);
  const snapshots = useVolumeSnapshots(project, source === 'snapshot' ? from : null);
  const backups = useVolumeBackups(project, source === 'backup' ? from : null);
  return (
    <>
      <SegmentedControl
        aria-label="Contents"
        data={options({ empty: 'Empty', volume: 'Copy of a volume', snapshot: 'A snapshot', backup: 'A backup' })}
        {...form.getInputProps('source')}
      />
      {source !== 'empty' && (
        <Select
          label="From volume"
          searchable
          data={(volumes.data ?? []).map((v) => v.name)}
          nothingFoundMessage="No volume in this project"
          {...fieldProps(form, 'volume')}
        />
      )}
      {(source === 'snapshot' || source === 'backup') && (
        <Select
          label={source === 'snapshot' ? 'Snapshot' : 'Backup'}
          disabled={!from}
          data={
            source === 'snapshot'
              ? (snapshots.data ?? []).map(copyLabel)
              : (backups.data ?? []).filter((b) => b.status === 'done').map(copyLabel)
          }
          nothingFoundMessage={source === 'snapshot' ? 'That volume has no snapshot' : 'That volume has no done backup'}
          {...fieldProps(form, source)}
        />
      )}
    </>
  );
}
