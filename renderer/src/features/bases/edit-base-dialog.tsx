import { NumberInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { MAX_WARM, type Base } from '../../../../shared/schemas/system';
import { FormDialog, useFormDialog } from '../../kit/form-dialog';
import { useUpdateBase } from './use-bases';

interface EditValues {
  warm: number | string;
}

const warmError = (v: number | string) =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_WARM
    ? null
    : `A whole number from 0 to ${MAX_WARM}`;

/** A base's settings: its warm pool (PUT /v1/bases/{name}). */
export function EditBaseDialog({ base, onClose }: { base: Base | null; onClose(): void }) {
  const update = useUpdateBase();
  const form = useForm<EditValues>({
    initialValues: { warm: base?.warm ?? 0 },
    validateInputOnChange: true,
    validate: { warm: warmError },
  });
  const dialog = useFormDialog({
    opened: base !== null,
    onClose,
    form,
    mutation: update,
    fieldOf: (path) => (path === 'warm' ? 'warm' : null),
    onOpen: () => {
      form.setValues({ warm: base?.warm ?? 0 });
      form.resetDirty();
      update.reset();
    },
  });
  const submit = form.onSubmit((v) =>
    update.mutate(
      { name: base!.name, warm: Number(v.warm) },
      {
        onSuccess: (b) =>
          dialog.done(`Base ${b.name} saved`, b.warm ? `${b.warm} containers are kept ready.` : 'No warm pool.'),
      },
    ),
  );
  return (
    <FormDialog
      {...dialog}
      title={`Edit base ${base?.name ?? ''}`}
      submitLabel="Save"
      onSubmit={submit}
      problemTitle="Could not save the base"
    >
      <NumberInput
        label="Warm containers"
        description="paused containers kept ready, so a new box of this base starts at once (0: none)"
        min={0}
        max={MAX_WARM}
        allowDecimal={false}
        {...form.getInputProps('warm')}
        errorProps={{ role: 'alert' }}
      />
    </FormDialog>
  );
}
