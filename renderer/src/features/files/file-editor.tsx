import { Alert, Badge, Button, Group, Loader, Stack, Text } from '@mantine/core';
import { IconArrowLeft, IconDeviceFloppy, IconDownload } from '@tabler/icons-react';
import { useEffect, useState, type KeyboardEvent } from 'react';
import type { FileStat } from '../../../../shared/schemas/files';
import { useFileTransfers, useInvalidateFiles } from '../../api/files';
import { describeError } from '../../api/session';
import { notifyDone } from '../../app/notify';
import { decodeText, formatSize } from './box-paths';
import { CodeEditor } from './code-editor';

/** Files larger than this open read-only, showing only their first MiB. */
export const EDIT_LIMIT = 1024 * 1024;

type Loaded = { kind: 'text'; text: string; truncated: boolean } | { kind: 'binary' };

interface Props {
  project: string;
  name: string;
  file: FileStat;
  onDirtyChange(dirty: boolean): void;
  onClose(): void;
}

/** One file in CodeMirror: text up to 1 MiB is editable and saved with its own mode (Ctrl/Cmd+S). */
export function FileEditor({ project, name, file, onDirtyChange, onClose }: Props) {
  const transfers = useFileTransfers(project, name);
  const invalidate = useInvalidateFiles(project, name);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState('');
  const [text, setText] = useState('');
  const [saving, setSaving] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const [size, setSize] = useState(file.size);
  const dirty = loaded?.kind === 'text' && text !== saved;
  const editable = loaded?.kind === 'text' && !loaded.truncated;

  useEffect(() => {
    let live = true;
    setError(null);
    transfers
      .readHead(file.path, EDIT_LIMIT)
      .then(({ bytes, truncated }) => {
        if (!live) return;
        const decoded = decodeText(bytes);
        if (decoded === null) return setLoaded({ kind: 'binary' });
        setLoaded({ kind: 'text', text: decoded, truncated });
        setSaved(decoded);
        setText(decoded);
      })
      .catch((err: unknown) => live && setError(describeError(err)));
    return () => {
      live = false;
    };
    // transfers is rebuilt each render; the file and the retry count are what matter.
  }, [file.path, attempt]);

  useEffect(() => {
    onDirtyChange(dirty);
  }, [dirty, onDirtyChange]);
  useEffect(
    () => () => {
      onDirtyChange(false);
    },
    [onDirtyChange],
  );
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const save = async () => {
    if (!dirty || saving) return;
    setSaving(true);
    const content = text;
    try {
      const stat = await transfers.writeText(file.path, content, file.mode);
      setSaved(content);
      setSize(stat.size);
      invalidate();
      notifyDone(`Saved ${file.path}`, `${formatSize(stat.size)} written with mode ${stat.mode}.`);
    } catch (err) {
      notifyDone(`Could not save ${file.path}`, describeError(err), false);
    } finally {
      setSaving(false);
    }
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
      e.preventDefault();
      void save();
    }
  };
  const download = () =>
    void transfers
      .download(file.path)
      .catch((err: unknown) => notifyDone(`Could not download ${file.path}`, describeError(err), false));

  return (
    <Stack gap="xs" onKeyDownCapture={onKeyDown}>
      <Group justify="space-between">
        <Group gap="xs">
          <Button variant="default" leftSection={<IconArrowLeft size={16} />} onClick={onClose}>
            Back to the folder
          </Button>
          <Text size="sm" c="dimmed">
            {formatSize(size)} · mode {file.mode}
          </Text>
          {dirty && (
            <Badge color="yellow" variant="light" role="status">
              Unsaved changes
            </Badge>
          )}
        </Group>
        <Group gap="xs">
          <Button variant="default" leftSection={<IconDownload size={16} />} onClick={download}>
            Download
          </Button>
          {editable && (
            <Button
              leftSection={<IconDeviceFloppy size={16} />}
              onClick={() => void save()}
              disabled={!dirty}
              loading={saving}
            >
              Save
            </Button>
          )}
        </Group>
      </Group>
      {error ? (
        <Alert color="red" title={`Cannot read ${file.path}`} role="alert">
          <Text size="sm">{error}</Text>
          <Button mt="xs" size="xs" variant="light" onClick={() => setAttempt((n) => n + 1)}>
            Try again
          </Button>
        </Alert>
      ) : !loaded ? (
        <Group role="status" gap="xs">
          <Loader size="xs" /> Reading {file.path}…
        </Group>
      ) : loaded.kind === 'binary' ? (
        <Alert color="gray" title="This file is not text" role="note">
          <Text size="sm">
            It holds bytes that are not UTF-8 text, so it is not shown here. Download it to open it with a program that
            reads it.
          </Text>
        </Alert>
      ) : (
        <>
          {loaded.truncated && (
            <Alert color="yellow" title="Read-only: this file is larger than 1 MiB" role="note">
              <Text size="sm">
                Only its first 1 MiB is shown, and it cannot be edited here. Download it to see all of it, or edit it in
                the box's console.
              </Text>
            </Alert>
          )}
          <CodeEditor value={text} onChange={setText} readOnly={!editable} label={`Contents of ${file.path}`} />
          {editable && (
            <Text size="xs" c="dimmed">
              Ctrl+S (⌘S) saves. The file keeps its mode ({file.mode}).
            </Text>
          )}
        </>
      )}
    </Stack>
  );
}
