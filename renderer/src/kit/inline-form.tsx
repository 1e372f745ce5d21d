import { Group, Paper } from '@mantine/core';
import type { ReactNode } from 'react';
import { SubmitForm } from './submit-form';

/**
 * A one-line form in a bordered panel: its fields and button side by side, sent by Enter or the
 * button (`onSubmit` decides whether it may go). `below` is shown under the line (progress).
 */
export function InlineForm({
  label,
  onSubmit,
  children,
  below,
}: {
  label: string;
  onSubmit(): void;
  children: ReactNode;
  below?: ReactNode;
}) {
  return (
    <Paper withBorder p="sm">
      <SubmitForm label={label} onSubmit={onSubmit}>
        <Group align="flex-end">{children}</Group>
        {below}
      </SubmitForm>
    </Paper>
  );
}
