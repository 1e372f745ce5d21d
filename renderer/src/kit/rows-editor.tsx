import { ActionIcon, Button, Group, Input, Stack } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import type { ReactNode } from 'react';

interface Props<T> {
  label: string;
  description?: string;
  /** Names the buttons and the fields of a row: "variable", "volume mount". */
  noun: string;
  rows: T[];
  /** A new, empty row. */
  blank: T;
  error?: string;
  onChange(rows: T[]): void;
  /** The inputs of row `i`; `set` changes some of its fields. */
  children(row: T, i: number, set: (patch: Partial<T>) => void): ReactNode;
}

/** Rows of inputs with a remove button each and one to add a row, under one label and one error. */
export function RowsEditor<T>({ label, description, noun, rows, blank, error, onChange, children }: Props<T>) {
  const set = (i: number) => (patch: Partial<T>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <Input.Wrapper label={label} description={description} error={error} errorProps={{ role: 'alert' }}>
      <Stack gap={6} mt={4}>
        {rows.map((row, i) => (
          <Group key={i} gap={6} wrap="nowrap" align="center">
            {children(row, i, set(i))}
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={`Remove ${noun} ${i + 1}`}
              onClick={() => onChange(rows.filter((_, j) => j !== i))}
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Group>
        ))}
        <Button
          variant="subtle"
          size="xs"
          leftSection={<IconPlus size={14} />}
          onClick={() => onChange([...rows, blank])}
          style={{ alignSelf: 'flex-start' }}
        >
          Add {noun}
        </Button>
      </Stack>
    </Input.Wrapper>
  );
}
