import { ActionIcon, Button, Checkbox, Group, Input, Select, Stack, TextInput } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useVolumes } from '../../api/volumes';
import { mountPathError, type MountRow } from './mount-rows';

/** Rows of volume, path and read-only for the box create dialog (sent as data_mounts). */
export function MountsEditor({
  project,
  rows,
  error,
  onChange,
}: {
  project: string;
  rows: MountRow[];
  error?: string;
  onChange(rows: MountRow[]): void;
}) {
  const volumes = useVolumes(project);
  const set = (i: number, patch: Partial<MountRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <Input.Wrapper
      label="Data volumes"
      description="mounted in the box at a path; they outlive it"
      error={error}
      errorProps={{ role: 'alert' }}
    >
      <Stack gap={6} mt={4}>
        {rows.map((r, i) => (
          <Group key={i} gap={6} wrap="nowrap" align="center">
            <Select
              aria-label={`Mount ${i + 1} volume`}
              placeholder="volume"
              data={(volumes.data ?? []).map((v) => v.name)}
              nothingFoundMessage="No volume in this project: create one on the Volumes page"
              value={r.name}
              onChange={(name) => set(i, { name })}
              style={{ flex: 1 }}
            />
            <TextInput
              aria-label={`Mount ${i + 1} path`}
              placeholder="/data"
              value={r.path}
              error={r.path !== '' && mountPathError(r.path) ? ' ' : undefined}
              onChange={(e) => set(i, { path: e.currentTarget.value })}
              style={{ flex: 1 }}
            />
            <Checkbox
              label="read-only"
              aria-label={`Mount ${i + 1} read-only`}
              checked={r.read_only}
              onChange={(e) => set(i, { read_only: e.currentTarget.checked })}
            />
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={`Remove mount ${i + 1}`}
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
          onClick={() => onChange([...rows, { name: null, path: '', read_only: false }])}
          style={{ alignSelf: 'flex-start' }}
        >
          Add volume mount
        </Button>
      </Stack>
    </Input.Wrapper>
  );
}
