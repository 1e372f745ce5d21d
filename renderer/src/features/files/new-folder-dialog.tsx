import { Button, Group, Modal, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { describeError } from '../../api/session';
import { folderNameProblem } from './box-paths';

/** Asks for a folder name (checked as you type) and creates it in `dir`; the server's error lands at the field. */
export function NewFolderDialog({
  opened,
  dir,
  onClose,
  create,
}: {
  opened: boolean;
  dir: string;
  onClose(): void;
  create(name: string): Promise<void>;
}) {
  const [value, setValue] = useState('');
  const [serverError, setServerError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const problem = value === '' ? null : folderNameProblem(value);

  const close = () => {
    setValue('');
    setServerError(null);
    onClose();
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const p = folderNameProblem(value);
    if (p) return setServerError(p);
    setBusy(true);
    try {
      await create(value);
      close();
    } catch (err) {
      setServerError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal opened={opened} onClose={close} title={`New folder in ${dir}`}>
      <form onSubmit={(e) => void submit(e)}>
        <TextInput
          label="Folder name"
          data-autofocus
          value={value}
          onChange={(e) => {
            setValue(e.currentTarget.value);
            setServerError(null);
          }}
          error={problem ?? serverError}
        />
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={close}>
            Cancel
          </Button>
          <Button type="submit" loading={busy} disabled={!!problem}>
            Create folder
          </Button>
        </Group>
      </form>
    </Modal>
  );
}
