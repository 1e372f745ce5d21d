import { Alert, Text } from '@mantine/core';
import { describeError } from '../api/session';

export interface Failure {
  title: string;
  error: unknown;
}

/** A failed action, said where it happened, until dismissed. */
export function FailureAlert({ failure, onDismiss }: { failure: Failure | null; onDismiss(): void }) {
  if (!failure) return null;
  return (
    <Alert
      color="red"
      role="alert"
      title={failure.title}
      withCloseButton
      closeButtonLabel="Dismiss"
      onClose={onDismiss}
    >
      <Text size="sm">{describeError(failure.error)}</Text>
    </Alert>
  );
}
