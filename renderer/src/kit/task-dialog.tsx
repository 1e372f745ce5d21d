import { Button, Group, Modal, Stack } from '@mantine/core';
import type { ReactNode } from 'react';
import { SubmitForm } from './submit-form';

interface TaskDialogProps {
  title: string;
  opened: boolean;
  /** While the task runs the dialog stays open, and Close becomes the cancel button. */
  running: boolean;
  onClose(): void;
  onSubmit(): void;
  onCancel(): void;
  cancelLabel: string;
  /** A cancel that cannot be sent yet (the task is still being sent). */
  cancelDisabled?: boolean;
  submitLabel: string;
  /** Its fields, then its progress. */
  children: ReactNode;
}

/** A dialog that runs one long task (a build, a box from a folder): its fields and progress, Close or Cancel, and Start. */
export function TaskDialog(props: TaskDialogProps) {
  const { title, opened, running, onClose, onSubmit, onCancel } = props;
  return (
    <Modal
      opened={opened}
      onClose={() => !running && onClose()}
      title={title}
      size="xl"
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <SubmitForm label={title} onSubmit={onSubmit}>
        <Stack gap="sm">
          {props.children}
          <Group justify="flex-end">
            {running ? (
              <Button variant="default" color="red" onClick={onCancel} disabled={props.cancelDisabled}>
                {props.cancelLabel}
              </Button>
            ) : (
              <Button variant="default" onClick={onClose}>
                Close
              </Button>
            )}
            <Button type="submit" loading={running}>
              {props.submitLabel}
            </Button>
          </Group>
        </Stack>
      </SubmitForm>
    </Modal>
  );
}
