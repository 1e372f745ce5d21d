import { TextInput } from '@mantine/core';
import { PAIR_KINDS, type Pair, type PairKind } from './pairs';
import { RowsEditor } from './rows-editor';

interface Props {
  kind: PairKind;
  label: string;
  pairs: Pair[];
  error?: string;
  onChange(pairs: Pair[]): void;
}

/** Rows of name = value for environment variables and tags; a name off the schema's pattern is flagged as you type. */
export function KeyValueEditor({ kind, label, pairs, error, onChange }: Props) {
  const { noun, pattern, hint } = PAIR_KINDS[kind];
  return (
    <RowsEditor label={label} noun={noun} rows={pairs} blank={{ key: '', value: '' }} error={error} onChange={onChange}>
      {(pair, i, set) => (
        <>
          <TextInput
            aria-label={`${noun} ${i + 1} name`}
            placeholder="name"
            value={pair.key}
            error={pair.key.trim() !== '' && !pattern.test(pair.key.trim()) ? hint : undefined}
            onChange={(e) => set({ key: e.currentTarget.value })}
            style={{ flex: 1 }}
          />
          <TextInput
            aria-label={`${noun} ${i + 1} value`}
            placeholder="value"
            value={pair.value}
            onChange={(e) => set({ value: e.currentTarget.value })}
            style={{ flex: 1 }}
          />
        </>
      )}
    </RowsEditor>
  );
}
