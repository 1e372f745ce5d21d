import { useForm } from '@mantine/form';
import type { Box } from '../../../../shared/schemas/box';
import { FormDialog, useFormDialog } from '../../kit/form-dialog';
import { boxFieldOf, boxRules, boxValues, networkOf, type BoxValues } from '../boxes/box-form';
import { NetworkFields } from '../boxes/network-fields';
import { useUpdateBox } from '../boxes/use-boxes';

/** Change the box's network policy alone; a running box's rules change at once. */
export function NetworkDialog({ box, opened, onClose }: { box: Box; opened: boolean; onClose(): void }) {
  const update = useUpdateBox(box.project);
  const form = useForm<BoxValues>({
    mode: 'controlled',
    initialValues: boxValues(box),
    validateInputOnChange: true,
    validate: { allow: boxRules(true, null, null).allow },
  });
  const dialog = useFormDialog({
    opened,
    onClose,
    form,
    mutation: update,
    fieldOf: boxFieldOf,
    onOpen: () => {
      update.reset();
      form.setValues(boxValues(box));
      form.resetDirty();
      form.clearErrors();
    },
  });
  const submit = form.onSubmit((v) =>
    update.mutate(
      { name: box.name, body: { network: networkOf(v) } },
      {
        onSuccess: () =>
          dialog.done(`Saved ${box.name}'s network`, 'The new policy applies from the next connection on.'),
      },
    ),
  );
  return (
    <FormDialog
      {...dialog}
      title={`Network of ${box.name}`}
      submitLabel="Save"
      onSubmit={submit}
      problemTitle="Could not change the network"
    >
      <NetworkFields form={form} />
    </FormDialog>
  );
}
