import { useForm } from '@mantine/form';
import type { Box } from '../../../../shared/schemas/box';
import { notifyDone } from '../../app/notify';
import { FormDialog, useFormDialog } from '../../kit/form-dialog';
import { NameInput } from '../../kit/name-input';
import { boxFieldOf, boxRules, boxValues, createBody, updateBody, type BoxValues } from './box-form';
import { LimitsFields, RegionField, SettingsFields, SourceFields, useEngineLimits } from './box-form-fields';
import { LifecycleFields } from './lifecycle-fields';
import { useCreateBox, useUpdateBox } from './use-boxes';
import type { ProjectDialogProps } from '../../kit/dialog-props';

/** After Save: what applies when, then the dialog closes. */
function saved(name: string, onClose: () => void): () => void {
  return () => {
    notifyDone(
      `Saved ${name}`,
      'The new settings apply now (environment: to the next console or exec; network: to the next connection).',
    );
    onClose();
  };
}

/** Create a box (name checked as you type, base or fork source, limits bounded by the engine), or edit one. */
export function BoxFormDialog({ project, opened, onClose, box }: ProjectDialogProps & { box?: Box }) {
  const editing = box !== undefined;
  const { maxCpus, maxRam } = useEngineLimits(opened);
  const create = useCreateBox(project);
  const update = useUpdateBox(project);
  const mutation = editing ? update : create;
  const form = useForm<BoxValues>({
    mode: 'controlled',
    initialValues: boxValues(),
    validateInputOnChange: true,
    validate: boxRules(editing, maxCpus, maxRam),
  });
  const dialog = useFormDialog({
    opened,
    onClose,
    form,
    mutation,
    fieldOf: boxFieldOf,
    taken: editing ? undefined : { field: 'name' },
    // Each opening starts from the box being edited, or from an empty form.
    onOpen: () => {
      mutation.reset();
      form.setValues(boxValues(box));
      form.resetDirty();
      form.clearErrors();
    },
  });

  const submit = form.onSubmit((v) => {
    if (editing) update.mutate({ name: box.name, body: updateBody(v) }, { onSuccess: saved(box.name, onClose) });
    else
      create.mutate(createBody(v), {
        onSuccess: (made) => dialog.done(`Created ${made.name}`, `${made.name} is ${made.status}.`),
      });
  });

  return (
    <FormDialog
      {...dialog}
      title={editing ? `Edit ${box.name}` : 'Create a box'}
      size="lg"
      submitLabel={editing ? 'Save' : 'Create'}
      onSubmit={submit}
      problemTitle={editing ? 'Could not save' : 'Could not create the box'}
      progress={editing ? undefined : `Creating ${form.values.name}: starting its container…`}
    >
      <NameInput
        description={editing ? undefined : 'lower-case letters, digits and hyphens'}
        required={!editing}
        disabled={editing}
        {...form.getInputProps('name')}
      />
      {!editing && <SourceFields form={form} project={project} opened={opened} />}
      {!editing && <RegionField form={form} opened={opened} />}
      <LimitsFields form={form} maxCpus={maxCpus} maxRam={maxRam} />
      <SettingsFields form={form} project={project} editing={editing} />
      <LifecycleFields form={form} box={box} />
    </FormDialog>
  );
}
