import { TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useState } from 'react';
import { describeError } from '../../api/session';
import { FormDialog, useOnOpen } from '../../kit/form-dialog';
import { folderNameProblem } from './box-paths';

/** Asks for a folder name (checked as you type) and creates it in `dir`; the server's refusal lands at the field. */
export function NewFolderDialog({
  opened,
  dir,
  onClose,
  create,
}: {
  opened: boolean;
  dir: string;
  onClose(): void;
  create(name: string): Promise<void>;
}) {
  const [busy, setBusy] = useState(false);
  const form = useForm({
    initialValues: { name: '' },
    validateInputOnChange: true,
    validate: { name: folderNameProblem },
  });
  useOnOpen(opened, () => form.reset());
  const submit = form.onSubmit(async ({ name }) => {
    setBusy(true);
    try {
      await create(name);
      onClose();
    } catch (err) {
      form.setFieldError('name', describeError(err));
    } finally {
      setBusy(false);
    }
  });
  return (
    <FormDialog
      opened={opened}
      onClose={onClose}
      title={`New folder in ${dir}`}
      submitLabel="Create folder"
      onSubmit={submit}
      pending={busy}
      problemTitle="Could not create the folder"
    >
      <TextInput
        label="Folder name"
        data-autofocus
        autoComplete="off"
        {...form.getInputProps('name')}
        errorProps={{ role: 'alert' }}
      />
    </FormDialog>
  );
}
