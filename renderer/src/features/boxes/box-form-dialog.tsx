import {
  Alert,
  Button,
  Group,
  Modal,
  NumberInput,
  Progress,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect, useMemo } from 'react';
import { ApiError } from '../../../../shared/errors';
import type { Box, BoxCreate } from '../../../../shared/schemas/box';
import { DEFAULT_CONFIG } from '../../../../shared/schemas/box';
import { DNS_LABEL_PATTERN, ENV_NAME_PATTERN, TAG_KEY_PATTERN } from '../../../../shared/schemas/common';
import { useBoxes, useCreateBox, useUpdateBox } from '../../api/boxes';
import { describeError } from '../../api/session';
import { useBases, useSystem } from '../../api/system';
import { notifyDone } from '../../app/notify';
import { mountsError, rowsToMounts, type MountRow } from '../volumes/mount-rows';
import { MountsEditor } from '../volumes/mounts-editor';
import { fieldOfPath } from './form-errors';
import { KeyValueEditor, mapToPairs, pairsError, pairsToMap, type Pair } from './key-value-editor';

const DNS_LABEL = new RegExp(DNS_LABEL_PATTERN);
const ENV_NAME = new RegExp(ENV_NAME_PATTERN);
const TAG_KEY = new RegExp(TAG_KEY_PATTERN);
const NAME_RULE = 'Use 1–63 lower-case letters, digits and hyphens, starting and ending with a letter or digit.';
const MIB = 1024 * 1024;

interface Values {
  name: string;
  source: 'base' | 'fork';
  base: string | null;
  fork: string | null;
  cpus: number | string;
  ram_mb: number | string;
  environment: Pair[];
  tags: Pair[];
  mounts: MountRow[];
}

function bounded(value: number | string, min: number, max: number | null, what: string): string | null {
  if (value === '') return null;
  const n = Number(value);
  if (!Number.isInteger(n)) return `${what} must be a whole number`;
  if (n < min) return `${what} must be at least ${min}`;
  if (max !== null && n > max) return `${what} must be at most ${max} (what the engine has)`;
  return null;
}

/** Create a box (name checked as you type, base or fork source, limits bounded by the engine), or edit one. */
export function BoxFormDialog({
  project,
  opened,
  onClose,
  box,
}: {
  project: string;
  opened: boolean;
  onClose(): void;
  box?: Box;
}) {
  const editing = box !== undefined;
  const system = useSystem(opened);
  const bases = useBases(opened);
  const boxes = useBoxes(project);
  const create = useCreateBox(project);
  const update = useUpdateBox(project);
  const mutation = editing ? update : create;
  const maxCpus = system.data?.engine.cpus ?? null;
  const maxRam = system.data?.engine.memory_bytes ? Math.floor(system.data.engine.memory_bytes / MIB) : null;

  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: {
      name: '',
      source: 'base',
      base: null,
      fork: null,
      cpus: '',
      ram_mb: '',
      environment: [],
      tags: [],
      mounts: [],
    },
    validateInputOnChange: true,
    validate: {
      name: (v) => (editing || DNS_LABEL.test(v) ? null : v === '' ? 'A name is needed' : NAME_RULE),
      fork: (v, values) => (!editing && values.source === 'fork' && !v ? 'Pick the box to fork' : null),
      cpus: (v) => bounded(v, 1, maxCpus, 'CPUs'),
      ram_mb: (v) => bounded(v, 64, maxRam, 'Memory'),
      environment: (v) => pairsError(v, ENV_NAME, 'Variable', 'letters, digits and _, not starting with a digit'),
      tags: (v) => pairsError(v, TAG_KEY, 'Tag', 'letters, digits and . _ / -, starting with a letter or digit'),
      mounts: (v) => (editing ? null : mountsError(v)),
    },
  });

  // Each opening starts from the box being edited, or from an empty form.
  useEffect(() => {
    if (!opened) return;
    mutation.reset();
    form.setValues({
      name: box?.name ?? '',
      source: 'base',
      base: null,
      fork: null,
      cpus: box?.config.cpus ?? '',
      ram_mb: box?.config.ram_mb ?? '',
      environment: mapToPairs(box?.environment),
      tags: mapToPairs(box?.tags),
      mounts: [],
    });
    form.resetDirty();
    form.clearErrors();
  }, [opened, box?.name]);

  const forkable = useMemo(
    () => (boxes.data ?? []).filter((b) => b.status === 'running' || b.status === 'stopped').map((b) => b.name),
    [boxes.data],
  );
  // A problem that names a field is shown there; anything else above the buttons.
  const err = mutation.error;
  const atField =
    err instanceof ApiError &&
    ((err.errors ?? []).some((e) => fieldOfPath(e.path)) || (err.code === 'already_exists' && !editing));
  const general = err && !atField ? err : null;

  const submit = form.onSubmit(async (v) => {
    const config = {
      ...(v.cpus !== '' ? { cpus: Number(v.cpus) } : {}),
      ...(v.ram_mb !== '' ? { ram_mb: Number(v.ram_mb) } : {}),
    };
    try {
      if (editing) {
        await update.mutateAsync({
          name: box.name,
          body: { config, environment: pairsToMap(v.environment), tags: pairsToMap(v.tags) },
        });
        notifyDone(`Saved ${box.name}`, 'The new settings apply now (environment: to the next console or exec).');
      } else {
        const body: BoxCreate = { name: v.name, ...(Object.keys(config).length ? { config } : {}) };
        if (v.source === 'fork' && v.fork) body.fork = v.fork;
        if (v.source === 'base' && v.base) body.base = v.base;
        if (v.environment.length) body.environment = pairsToMap(v.environment);
        if (v.tags.length) body.tags = pairsToMap(v.tags);
        if (v.mounts.length) body.data_mounts = rowsToMounts(v.mounts);
        const made = await create.mutateAsync(body);
        notifyDone(`Created ${made.name}`, `${made.name} is ${made.status}.`);
      }
      onClose();
    } catch (failure) {
      if (!(failure instanceof ApiError)) return;
      for (const e of failure.errors ?? []) {
        const field = fieldOfPath(e.path);
        if (field) form.setFieldError(field, e.message);
      }
      if (failure.code === 'already_exists' && !editing) form.setFieldError('name', failure.message);
    }
  });

  const pending = mutation.isPending;
  return (
    <Modal
      opened={opened}
      onClose={() => !pending && onClose()}
      title={editing ? `Edit ${box.name}` : 'Create a box'}
      size="lg"
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form onSubmit={submit} noValidate aria-label={editing ? `Edit ${box.name}` : 'Create a box'}>
        <Stack gap="sm">
          <TextInput
            label="Name"
            description={editing ? undefined : 'lower-case letters, digits and hyphens'}
            required={!editing}
            disabled={editing}
            data-autofocus
            autoComplete="off"
            {...form.getInputProps('name')}
            errorProps={{ role: 'alert' }}
          />
          {!editing && (
            <>
              <SegmentedControl
                aria-label="Start from"
                data={[
                  { value: 'base', label: 'A base' },
                  { value: 'fork', label: 'A copy of a box (fork)' },
                ]}
                {...form.getInputProps('source')}
              />
              {form.values.source === 'base' ? (
                <Select
                  label="Base"
                  placeholder="default"
                  clearable
                  data={(bases.data?.items ?? []).map((b) => ({ value: b.name, label: `${b.name} (${b.image})` }))}
                  {...form.getInputProps('base')}
                  errorProps={{ role: 'alert' }}
                />
              ) : (
                <Select
                  label="Fork source"
                  placeholder="a running or stopped box"
                  searchable
                  data={forkable}
                  nothingFoundMessage="No box to fork in this project"
                  {...form.getInputProps('fork')}
                  errorProps={{ role: 'alert' }}
                />
              )}
            </>
          )}
          <Group grow align="start">
            <NumberInput
              label="CPUs"
              placeholder={String(DEFAULT_CONFIG.cpus)}
              min={1}
              max={maxCpus ?? undefined}
              description={maxCpus ? `1 to ${maxCpus}` : undefined}
              allowDecimal={false}
              {...form.getInputProps('cpus')}
              errorProps={{ role: 'alert' }}
            />
            <NumberInput
              label="Memory (MiB)"
              placeholder={String(DEFAULT_CONFIG.ram_mb)}
              min={64}
              max={maxRam ?? undefined}
              step={256}
              description={maxRam ? `64 to ${maxRam}` : undefined}
              allowDecimal={false}
              {...form.getInputProps('ram_mb')}
              errorProps={{ role: 'alert' }}
            />
          </Group>
          <KeyValueEditor
            label="Environment"
            noun="variable"
            keyPattern={ENV_NAME}
            keyHint="letters, digits, _"
            pairs={form.values.environment}
            error={form.errors.environment as string | undefined}
            onChange={(p) => form.setFieldValue('environment', p)}
          />
          <KeyValueEditor
            label="Tags"
            noun="tag"
            keyPattern={TAG_KEY}
            keyHint="letters, digits, . _ / -"
            pairs={form.values.tags}
            error={form.errors.tags as string | undefined}
            onChange={(p) => form.setFieldValue('tags', p)}
          />
          {!editing && (
            <MountsEditor
              project={project}
              rows={form.values.mounts}
              error={form.errors.mounts as string | undefined}
              onChange={(rows) => form.setFieldValue('mounts', rows)}
            />
          )}
          {general && (
            <Alert color="red" title={editing ? 'Could not save' : 'Could not create the box'} role="alert">
              {describeError(general)}
            </Alert>
          )}
          {pending && !editing && (
            <Stack gap={4} role="status" aria-label="Progress">
              <Text size="sm">Creating {form.values.name}: starting its container…</Text>
              <Progress value={100} animated striped aria-label="Creating" />
            </Stack>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} disabled={pending}>
              Cancel
            </Button>
            <Button type="submit" loading={pending}>
              {editing ? 'Save' : 'Create'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
