import { Alert, Button, Group, Modal, Progress, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect } from 'react';
import { DNS_LABEL_PATTERN } from '../../../../shared/schemas/common';
import { describeError } from '../../api/session';

const DNS_LABEL = new RegExp(DNS_LABEL_PATTERN);
export const NAME_RULE = 'Use 1–63 lower-case letters, digits and hyphens, starting and ending with a letter or digit.';

/** The DNS-label rule of the API's names, as a form validator. */
export function dnsLabelError(value: string): string | null {
  return DNS_LABEL.test(value) ? null : value === '' ? 'A name is needed' : NAME_RULE;
}

interface NameDialogProps {
  opened: boolean;
  title: string;
  label: string;
  description: string;
  submitLabel: string;
  pendingText: string;
  errorTitle: string;
  pending: boolean;
  error: unknown;
  onSubmit(name: string): void;
  onClose(): void;
}

/** A dialog asking for one name (a fork's box, a base), checked by the DNS-label rule as you type. */
export function NameDialog({
  opened,
  title,
  label,
  description,
  submitLabel,
  pendingText,
  errorTitle,
  pending,
  error,
  onSubmit,
  onClose,
}: NameDialogProps) {
  const form = useForm({ initialValues: { name: '' }, validateInputOnChange: true, validate: { name: dnsLabelError } });
  useEffect(() => {
    if (opened) form.reset();
  }, [opened]);
  return (
    <Modal
      opened={opened}
      onClose={() => !pending && onClose()}
      title={title}
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form noValidate aria-label={title} onSubmit={form.onSubmit((v) => onSubmit(v.name))}>
        <Stack>
          <Text size="sm">{description}</Text>
          <TextInput
            label={label}
            description="lower-case letters, digits and hyphens"
            required
            data-autofocus
            autoComplete="off"
            {...form.getInputProps('name')}
            errorProps={{ role: 'alert' }}
          />
          {error !== null && error !== undefined && (
            <Alert color="red" role="alert" title={errorTitle}>
              {describeError(error)}
            </Alert>
          )}
          {pending && (
            <Stack gap={4} role="status" aria-label={pendingText}>
              <Text size="sm">{pendingText}</Text>
              <Progress value={100} animated aria-hidden />
            </Stack>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} disabled={pending}>
              Cancel
            </Button>
            <Button type="submit" loading={pending}>
              {submitLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
