import {
  Alert,
  Button,
  Code,
  Group,
  Modal,
  NumberInput,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect } from 'react';
import { ApiError } from '../../../../shared/errors';
import { DEFAULT_BACKUP_RETENTION, type VolumeCreate } from '../../../../shared/schemas/volumes';
import { describeError } from '../../api/session';
import { useCreateVolume, useVolumeBackups, useVolumeSnapshots, useVolumes } from '../../api/volumes';
import { notifyDone } from '../../app/notify';
import { dnsLabelError } from '../snapshots/name-dialog';

type Source = 'empty' | 'volume' | 'snapshot' | 'backup';

/** A clone source chosen elsewhere (a snapshot's or a backup's "Clone into a new volume"). */
export interface ClonePreset {
  kind: 'snapshot' | 'backup';
  id: string;
  /** The volume it belongs to, for the words. */
  volume: string;
}

interface Values {
  name: string;
  size_gb: number | string;
  backup_retention: number | string;
  source: Source;
  volume: string | null;
  snapshot: string | null;
  backup: string | null;
}

const FIELDS = ['name', 'size_gb', 'backup_retention'] as const;
/** The form field a problem's errors[].path names (`body.size_gb` → size_gb). */
function fieldOf(path: string): keyof Values | null {
  const p = path.replace(/^body\.?/, '');
  if ((FIELDS as readonly string[]).includes(p)) return p as keyof Values;
  if (p === 'from_volume') return 'volume';
  if (p === 'from_snapshot') return 'snapshot';
  if (p === 'from_backup') return 'backup';
  return null;
}

function whole(v: number | string, min: number, max: number, what: string): string | null {
  if (v === '') return null;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) return `${what} must be a whole number from ${min} to ${max}`;
  return null;
}

/** A new volume: empty, or a clone of a volume, one of its snapshots or one of its done backups. */
export function CreateVolumeDialog({
  project,
  opened,
  onClose,
  preset,
}: {
  project: string;
  opened: boolean;
  onClose(): void;
  preset?: ClonePreset | null;
}) {
  const volumes = useVolumes(project, opened);
  const create = useCreateVolume(project);
  const form = useForm<Values>({
    initialValues: {
      name: '',
      size_gb: '',
      backup_retention: '',
      source: 'empty',
      volume: null,
      snapshot: null,
      backup: null,
    },
    validateInputOnChange: true,
    validate: {
      name: dnsLabelError,
      size_gb: (v) => whole(v, 1, 65536, 'Size'),
      backup_retention: (v) => whole(v, 1, 1000, 'Backups kept'),
      volume: (v, all) => (!preset && all.source !== 'empty' && !v ? 'Pick the volume to copy from' : null),
      snapshot: (v, all) => (!preset && all.source === 'snapshot' && !v ? 'Pick a snapshot of that volume' : null),
      backup: (v, all) => (!preset && all.source === 'backup' && !v ? 'Pick a done backup of that volume' : null),
    },
  });
  const from = preset ? null : form.values.volume;
  const snapshots = useVolumeSnapshots(project, form.values.source === 'snapshot' ? from : null);
  const backups = useVolumeBackups(project, form.values.source === 'backup' ? from : null);

  useEffect(() => {
    if (!opened) return;
    form.reset();
    create.reset();
  }, [opened]);

  const err = create.error;
  const atField =
    err instanceof ApiError && ((err.errors ?? []).some((e) => fieldOf(e.path)) || err.code === 'already_exists');
  const general = err && !atField ? err : null;

  const submit = form.onSubmit(async (v) => {
    const body: VolumeCreate = { name: v.name };
    if (v.size_gb !== '') body.size_gb = Number(v.size_gb);
    if (v.backup_retention !== '') body.backup_retention = Number(v.backup_retention);
    if (preset?.kind === 'snapshot') body.from_snapshot = preset.id;
    else if (preset?.kind === 'backup') body.from_backup = preset.id;
    else if (v.source === 'volume') body.from_volume = v.volume!;
    else if (v.source === 'snapshot') body.from_snapshot = v.snapshot!;
    else if (v.source === 'backup') body.from_backup = v.backup!;
    try {
      const made = await create.mutateAsync(body);
      notifyDone(`Volume ${made.name} made`, 'Mount it in a box from the box’s Volumes tab or when creating a box.');
      onClose();
    } catch (failure) {
      if (!(failure instanceof ApiError)) return;
      for (const e of failure.errors ?? []) {
        const field = fieldOf(e.path);
        if (field) form.setFieldError(field, e.message);
      }
      if (failure.code === 'already_exists') form.setFieldError('name', `${failure.message}; pick another name`);
    }
  });

  const title = preset
    ? `Clone ${preset.kind === 'snapshot' ? 'a snapshot' : 'a backup'} of ${preset.volume} into a new volume`
    : 'Create a volume';
  const pending = create.isPending;
  return (
    <Modal
      opened={opened}
      onClose={() => !pending && onClose()}
      title={title}
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form onSubmit={submit} noValidate aria-label={title}>
        <Stack gap="sm">
          <TextInput
            label="Name"
            description="lower-case letters, digits and hyphens"
            required
            data-autofocus
            autoComplete="off"
            {...form.getInputProps('name')}
            errorProps={{ role: 'alert' }}
          />
          <Group grow align="start">
            <NumberInput
              label="Size (GB)"
              description="recorded; enforced where the engine can"
              placeholder="none"
              min={1}
              max={65536}
              allowDecimal={false}
              {...form.getInputProps('size_gb')}
              errorProps={{ role: 'alert' }}
            />
            <NumberInput
              label="Backups kept"
              description="past it the oldest goes"
              placeholder={String(DEFAULT_BACKUP_RETENTION)}
              min={1}
              max={1000}
              allowDecimal={false}
              {...form.getInputProps('backup_retention')}
              errorProps={{ role: 'alert' }}
            />
          </Group>
          {preset ? (
            <Text size="sm">
              Filled from {preset.kind} <Code>{preset.id}</Code> of {preset.volume}.
            </Text>
          ) : (
            <>
              <SegmentedControl
                aria-label="Contents"
                data={[
                  { value: 'empty', label: 'Empty' },
                  { value: 'volume', label: 'Copy of a volume' },
                  { value: 'snapshot', label: 'A snapshot' },
                  { value: 'backup', label: 'A backup' },
                ]}
                {...form.getInputProps('source')}
              />
              {form.values.source !== 'empty' && (
                <Select
                  label="From volume"
                  searchable
                  data={(volumes.data ?? []).map((v) => v.name)}
                  nothingFoundMessage="No volume in this project"
                  {...form.getInputProps('volume')}
                  errorProps={{ role: 'alert' }}
                />
              )}
              {form.values.source === 'snapshot' && (
                <Select
                  label="Snapshot"
                  disabled={!from}
                  data={(snapshots.data ?? []).map((s) => ({
                    value: s.id,
                    label: `${new Date(s.created_at).toLocaleString()} (${s.id})`,
                  }))}
                  nothingFoundMessage="That volume has no snapshot"
                  {...form.getInputProps('snapshot')}
                  errorProps={{ role: 'alert' }}
                />
              )}
              {form.values.source === 'backup' && (
                <Select
                  label="Backup"
                  disabled={!from}
                  data={(backups.data ?? [])
                    .filter((b) => b.status === 'done')
                    .map((b) => ({ value: b.id, label: `${new Date(b.created_at).toLocaleString()} (${b.id})` }))}
                  nothingFoundMessage="That volume has no done backup"
                  {...form.getInputProps('backup')}
                  errorProps={{ role: 'alert' }}
                />
              )}
            </>
          )}
          {general && (
            <Alert color="red" role="alert" title="Could not create the volume">
              {describeError(general)}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} disabled={pending}>
              Cancel
            </Button>
            <Button type="submit" loading={pending}>
              {preset || form.values.source !== 'empty' ? 'Clone' : 'Create volume'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
