import { Alert, Button, Center, Group, Loader, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { describeError } from '../api/session';

/** What QueryStates reads of a react-query result. */
export interface QueryLike<T> {
  data: T | undefined;
  error: unknown;
  isPending: boolean;
  isError: boolean;
  refetch(): unknown;
}

interface Props<T> {
  query: QueryLike<T>;
  /** What is loaded, as it reads after "Loading" and "Could not load": "the volumes". */
  what: string;
  /** Shown instead of `children` when the data is empty (an empty list unless `isEmpty` says otherwise). */
  empty?: ReactNode;
  isEmpty?(data: T): boolean;
  /** What the loader says, when "Loading {what}…" says less ("Comparing with the base…"). */
  loading?: string;
  /** The failure's title instead of "Could not load {what}", and what else the user can do. */
  failed?: { title?: string; actions?: ReactNode };
  children(data: T): ReactNode;
}

/** The three states every list goes through before its data: loading (a status), failed (an alert with a retry), empty. */
export function QueryStates<T>({ query, what, empty, isEmpty, loading, failed, children }: Props<T>) {
  if (query.isPending)
    return (
      <Center role="status" p="sm">
        <Loader size="sm" mr="sm" />
        <Text size="sm">{loading ?? `Loading ${what}…`}</Text>
      </Center>
    );
  if (query.isError || query.data === undefined)
    return (
      <Alert color="red" role="alert" title={failed?.title ?? `Could not load ${what}`}>
        <Text size="sm">{describeError(query.error)}</Text>
        <Group mt="xs" gap="xs">
          <Button size="xs" variant="light" color="red" onClick={() => void query.refetch()}>
            Try again
          </Button>
          {failed?.actions}
        </Group>
      </Alert>
    );
  const data = query.data;
  const blank = isEmpty ? isEmpty(data) : Array.isArray(data) && data.length === 0;
  if (blank && empty !== undefined)
    return typeof empty === 'string' ? (
      <Text size="sm" c="dimmed">
        {empty}
      </Text>
    ) : (
      empty
    );
  return children(data);
}
