import { SegmentedControl, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

interface Props {
  /** Makes the ids of the label and the help. */
  id: string;
  label: string;
  data: { value: string; label: string }[];
  value: string;
  onChange(value: string): void;
  /** What the choices mean, under them. */
  help?: ReactNode;
  error?: ReactNode;
}

/** A labelled choice of a few (segmented), what each means, and the problem with it. */
export function ChoiceField({ id, label, data, value, onChange, help, error }: Props) {
  return (
    <div>
      <Text size="sm" fw={500} id={`${id}-label`} mb={4}>
        {label}
      </Text>
      <SegmentedControl
        aria-labelledby={`${id}-label`}
        aria-describedby={help ? `${id}-help` : undefined}
        data={data}
        value={value}
        onChange={onChange}
      />
      {help && (
        <Stack gap={2} mt={6} id={`${id}-help`}>
          {help}
        </Stack>
      )}
      {error && (
        <Text size="xs" c="red" role="alert">
          {error}
        </Text>
      )}
    </div>
  );
}
