import { Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { FormDialog, useFormDialog } from '../../kit/form-dialog';
import { NameInput } from '../../kit/name-input';
import { dnsLabelError } from '../../kit/validators';

/** What a name dialog says: its title, the field's label, what the name is for, and its button. */
export interface NameDialogText {
  title: string;
  label: string;
  description: string;
  submitLabel: string;
  pendingText: string;
  errorTitle: string;
}

const nameField = (path: string) => (path === 'name' ? ('name' as const) : null);

/** A dialog asking for one name (a fork's box, a base), checked by the DNS-label rule as you type. */
export function NameDialog({
  opened,
  text,
  pending,
  error,
  onSubmit,
  onClose,
}: {
  opened: boolean;
  text: NameDialogText;
  pending: boolean;
  error: unknown;
  onSubmit(name: string): void;
  onClose(): void;
}) {
  const form = useForm({ initialValues: { name: '' }, validateInputOnChange: true, validate: { name: dnsLabelError } });
  const dialog = useFormDialog({
    opened,
    onClose,
    form,
    mutation: { isPending: pending, error },
    fieldOf: nameField,
    taken: { field: 'name' },
  });
  return (
    <FormDialog
      {...dialog}
      title={text.title}
      submitLabel={text.submitLabel}
      onSubmit={form.onSubmit((v) => onSubmit(v.name))}
      problemTitle={text.errorTitle}
      progress={text.pendingText}
    >
      <Text size="sm">{text.description}</Text>
      <NameInput label={text.label} {...form.getInputProps('name')} />
    </FormDialog>
  );
}
