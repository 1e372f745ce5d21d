import { ActionIcon, Button, Group, Input, Stack, TextInput } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';

export interface Pair {
  key: string;
  value: string;
}

interface Props {
  label: string;
  /** e.g. "variable" or "tag": names the buttons and fields. */
  noun: string;
  keyPattern: RegExp;
  keyHint: string;
  pairs: Pair[];
  error?: string;
  onChange(pairs: Pair[]): void;
}

export function pairsToMap(pairs: Pair[]): Record<string, string> {
  return Object.fromEntries(pairs.filter((p) => p.key.trim() !== '').map((p) => [p.key.trim(), p.value]));
}

export function mapToPairs(map: Record<string, string> | undefined): Pair[] {
  return Object.entries(map ?? {}).map(([key, value]) => ({ key, value }));
}

/** First problem with the keys, or null: each must match the schema's pattern and appear once. */
export function pairsError(pairs: Pair[], pattern: RegExp, noun: string, hint: string): string | null {
  const seen = new Set<string>();
  for (const { key } of pairs) {
    const k = key.trim();
    if (k === '') continue;
    if (!pattern.test(k)) return `${noun} "${k}": ${hint}`;
    if (seen.has(k)) return `${noun} "${k}" appears twice`;
    seen.add(k);
  }
  return null;
}

/** Rows of name = value for environment variables and tags. */
export function KeyValueEditor({ label, noun, keyPattern, keyHint, pairs, error, onChange }: Props) {
  const set = (i: number, patch: Partial<Pair>) => onChange(pairs.map((p, j) => (j === i ? { ...p, ...patch } : p)));
  return (
    <Input.Wrapper label={label} error={error} errorProps={{ role: 'alert' }}>
      <Stack gap={6} mt={4}>
        {pairs.map((pair, i) => (
          <Group key={i} gap={6} wrap="nowrap">
            <TextInput
              aria-label={`${noun} ${i + 1} name`}
              placeholder="name"
              value={pair.key}
              error={pair.key.trim() !== '' && !keyPattern.test(pair.key.trim()) ? keyHint : undefined}
              onChange={(e) => set(i, { key: e.currentTarget.value })}
              style={{ flex: 1 }}
            />
            <TextInput
              aria-label={`${noun} ${i + 1} value`}
              placeholder="value"
              value={pair.value}
              onChange={(e) => set(i, { value: e.currentTarget.value })}
              style={{ flex: 1 }}
            />
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={`Remove ${noun} ${i + 1}`}
              onClick={() => onChange(pairs.filter((_, j) => j !== i))}
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Group>
        ))}
        <Button
          variant="subtle"
          size="xs"
          leftSection={<IconPlus size={14} />}
          onClick={() => onChange([...pairs, { key: '', value: '' }])}
          style={{ alignSelf: 'flex-start' }}
        >
          Add {noun}
        </Button>
      </Stack>
    </Input.Wrapper>
  );
}
