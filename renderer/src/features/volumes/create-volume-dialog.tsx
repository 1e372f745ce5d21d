import { Code, Group, NumberInput, Text } from '@mantine/core';
import { useForm, type UseFormReturnType } from '@mantine/form';
import { DEFAULT_BACKUP_RETENTION } from '../../../../shared/schemas/volumes';
import { fieldProps } from '../../kit/field-props';
import { FormDialog, useFormDialog } from '../../kit/form-dialog';
import { NameInput } from '../../kit/name-input';
import { CloneSourceFields } from './clone-source-fields';
import { useCreateVolume } from './use-volumes';
import {
  EMPTY_VOLUME,
  volumeBody,
  volumeFieldOf,
  volumeRules,
  type ClonePreset,
  type VolumeValues,
} from './volume-form';
import type { ProjectDialogProps } from '../../kit/dialog-props';

export type { ClonePreset } from './volume-form';

/** The size asked for and how many backups are kept. */
function SizeFields({ form }: { form: UseFormReturnType<VolumeValues> }) {
  return (
    <Group grow align="start">
      <NumberInput
        label="Size (GB)"
        description="recorded; enforced where the store can (btrfs)"
        placeholder="none"
        min={1}
        max={65536}
        allowDecimal={false}
        {...fieldProps(form, 'size_gb')}
      />
      <NumberInput
        label="Backups kept"
        description="past it the oldest goes"
        placeholder={String(DEFAULT_BACKUP_RETENTION)}
        min={1}
        max={1000}
        allowDecimal={false}
        {...fieldProps(form, 'backup_retention')}
      />
    </Group>
  );
}

/** A new volume: empty, or a clone of a volume, one of its snapshots or one of its done backups. */
export function CreateVolumeDialog({
  project,
  opened,
  onClose,
  preset = null,
}: ProjectDialogProps & { preset?: ClonePreset | null }) {
  const create = useCreateVolume(project);
  const form = useForm<VolumeValues>({
    initialValues: EMPTY_VOLUME,
    validateInputOnChange: true,
    validate: volumeRules(preset !== null),
  });
  const dialog = useFormDialog({
    opened,
    onClose,
    form,
    mutation: create,
    fieldOf: volumeFieldOf,
    taken: { field: 'name', hint: 'pick another name' },
  });

  const submit = form.onSubmit((v) =>
    create.mutate(volumeBody(v, preset), {
      onSuccess: (made) =>
        dialog.done(`Volume ${made.name} made`, 'Mount it in a box from the box’s Volumes tab or when creating a box.'),
    }),
  );
  const title = preset
    ? `Clone ${preset.kind === 'snapshot' ? 'a snapshot' : 'a backup'} of ${preset.volume} into a new volume`
    : 'Create a volume';
  return (
    <FormDialog
      {...dialog}
      title={title}
      submitLabel={preset || form.values.source !== 'empty' ? 'Clone' : 'Create volume'}
      onSubmit={submit}
      problemTitle="Could not create the volume"
    >
      <NameInput {...form.getInputProps('name')} />
      <SizeFields form={form} />
      {preset ? (
        <Text size="sm">
          Filled from {preset.kind} <Code>{preset.id}</Code> of {preset.volume}.
        </Text>
      ) : (
        <CloneSourceFields form={form} project={project} opened={opened} />
      )}
    </FormDialog>
  );
}
