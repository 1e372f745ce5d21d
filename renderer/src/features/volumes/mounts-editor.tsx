import { Checkbox, Select, TextInput } from '@mantine/core';
import { RowsEditor } from '../../kit/rows-editor';
import { mountPathError, type MountRow } from './mount-rows';
import { useVolumes } from './use-volumes';

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
  return (
    <RowsEditor
      label="Data volumes"
      description="mounted in the box at a path; they outlive it"
      noun="volume mount"
      rows={rows}
      blank={{ name: null, path: '', read_only: false }}
      error={error}
      onChange={onChange}
    >
      {(r, i, set) => (
        <>
          <Select
            aria-label={`Mount ${i + 1} volume`}
            placeholder="volume"
            data={(volumes.data ?? []).map((v) => v.name)}
            nothingFoundMessage="No volume in this project: create one on the Volumes page"
            value={r.name}
            onChange={(name) => set({ name })}
            style={{ flex: 1 }}
          />
          <TextInput
            aria-label={`Mount ${i + 1} path`}
            placeholder="/data"
            value={r.path}
            error={r.path !== '' && mountPathError(r.path) ? ' ' : undefined}
            onChange={(e) => set({ path: e.currentTarget.value })}
            style={{ flex: 1 }}
          />
          <Checkbox
            label="read-only"
            aria-label={`Mount ${i + 1} read-only`}
            checked={r.read_only}
            onChange={(e) => set({ read_only: e.currentTarget.checked })}
          />
        </>
      )}
    </RowsEditor>
  );
}
