import { Button, Group, Modal, Progress, Stack, Text } from '@mantine/core';
import { useEffect, type FormEvent, type ReactNode } from 'react';
import { notifyDone } from '../app/notify';
import { ProblemAlert } from './problem-alert';
import { placeProblem } from './problems';

interface Props {
  opened: boolean;
  onClose(): void;
  /** Names the dialog and its form. */
  title: string;
  size?: string;
  submitLabel: ReactNode;
  onSubmit(event?: FormEvent<HTMLFormElement>): void;
  pending: boolean;
  /** A failure no field claims, shown above the buttons. */
  problem?: unknown;
  problemTitle: string;
  /** What is happening while the request runs (e.g. "Creating web: starting its container…"). */
  progress?: string;
  children: ReactNode;
}

/** A modal form: its fields, a failure no field claims, progress while pending, Cancel and submit. */
export function FormDialog({
  opened,
  onClose,
  title,
  size,
  submitLabel,
  onSubmit,
  pending,
  problem,
  problemTitle,
  progress,
  children,
}: Props) {
  return (
    <Modal
      opened={opened}
      onClose={() => !pending && onClose()}
      title={title}
      size={size}
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form onSubmit={onSubmit} noValidate aria-label={title}>
        <Stack gap="sm">
          {children}
          <ProblemAlert title={problemTitle} problem={problem} />
          {pending && progress && (
            <Stack gap={4} role="status" aria-label="Progress">
              <Text size="sm">{progress}</Text>
              <Progress value={100} animated striped aria-hidden />
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

/** Runs `start` each time the dialog opens (a fresh form, a forgotten failure). */
export function useOnOpen(opened: boolean, start: () => void): void {
  // Only the opening matters; `start` is rebuilt each render.
  useEffect(() => {
    if (opened) start();
  }, [opened]);
}

interface FieldErrors {
  setFieldError(path: string, error: ReactNode): void;
}

/**
 * Shows a failed request where it belongs: each `errors[].path` at its field
 * (and a taken name at `taken.field`); returns what no field claims, for the
 * alert above the buttons.
 */
export function useProblemAtFields<F extends string>(
  form: FieldErrors,
  error: unknown,
  fieldOf: (path: string) => F | null,
  taken?: { field: F; hint?: string },
): unknown {
  const placed = placeProblem(error, fieldOf, taken);
  useEffect(() => {
    for (const [field, message] of Object.entries(placed.fields)) form.setFieldError(field, message as string);
  }, [error]);
  return placed.general;
}

interface DialogForm extends FieldErrors {
  reset(): void;
}

/**
 * What every form dialog does besides its fields: start afresh each time it
 * opens (`onOpen`, by default an empty form and no failure), and place a
 * failed request at its fields. Spread the result on FormDialog.
 */
export function useFormDialog<F extends string>(o: {
  opened: boolean;
  onClose(): void;
  form: DialogForm;
  mutation: { isPending: boolean; error: unknown; reset?(): void };
  fieldOf: (path: string) => F | null;
  taken?: { field: F; hint?: string };
  onOpen?(): void;
}) {
  useOnOpen(
    o.opened,
    o.onOpen ??
      (() => {
        o.form.reset();
        o.mutation.reset?.();
      }),
  );
  const problem = useProblemAtFields(o.form, o.mutation.error, o.fieldOf, o.taken);
  /** The dialog's work is done: say so, and close it. */
  const done = (title: string, message: string) => {
    notifyDone(title, message);
    o.onClose();
  };
  return { opened: o.opened, onClose: o.onClose, pending: o.mutation.isPending, problem, done };
}
