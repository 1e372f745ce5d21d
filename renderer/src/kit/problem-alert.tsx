import { Alert, Text } from '@mantine/core';
import { describeError } from '../api/session';

/**
 * A failure, under a title that says what could not be done: a request's problem or an error in words,
 * or a failure's own text (a build's, kept as written: its line breaks and indents). Nothing while there is none.
 */
export function ProblemAlert({ title, problem }: { title: string; problem: unknown }) {
  if (problem === null || problem === undefined) return null;
  return (
    <Alert color="red" title={title} role="alert">
      <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
        {describeError(problem)}
      </Text>
    </Alert>
  );
}
