import { Alert, Badge, Button, Group, Stack, Text } from '@mantine/core';
import { IconArrowLeft, IconDeviceFloppy, IconDownload } from '@tabler/icons-react';
import type { KeyboardEvent } from 'react';
import type { FileStat } from '../../../../shared/schemas/files';
import { formatBytes } from '../../kit/format';
import { QueryStates } from '../../kit/query-states';
import { CodeEditor } from './code-editor';
import { useFileContent, type Loaded } from './use-file-content';

interface Props {
  project: string;
  name: string;
  file: FileStat;
  onDirtyChange(dirty: boolean): void;
  onClose(): void;
}

/** What the file holds: an editor, a read-only first MiB, or a note that it is not text. */
function Contents({
  file,
  loaded,
  content,
}: {
  file: FileStat;
  loaded: Loaded;
  content: ReturnType<typeof useFileContent>;
}) {
  if (loaded.kind === 'binary')
    return (
      <Alert color="gray" title="This file is not text" role="note">
        <Text size="sm">
          It holds bytes that are not UTF-8 text, so it is not shown here. Download it to open it with a program that
          reads it.
        </Text>
      </Alert>
    );
  const editable = !loaded.truncated;
  return (
    <>
      {loaded.truncated && (
        <Alert color="yellow" title="Read-only: this file is larger than 1 MiB" role="note">
          <Text size="sm">
            Only its first 1 MiB is shown, and it cannot be edited here. Download it to see all of it, or edit it in the
            box's console.
          </Text>
        </Alert>
      )}
      <CodeEditor
        value={content.text}
        onChange={content.setText}
        readOnly={!editable}
        label={`Contents of ${file.path}`}
      />
      {editable && (
        <Text size="xs" c="dimmed">
          Ctrl+S (⌘S) saves. The file keeps its mode ({file.mode}).
        </Text>
      )}
    </>
  );
}

/** One file in CodeMirror: text up to 1 MiB is editable and saved with its own mode (Ctrl/Cmd+S). */
export function FileEditor({ project, name, file, onDirtyChange, onClose }: Props) {
  const content = useFileContent(project, name, file, onDirtyChange);
  const { loaded, error, dirty } = content;
  const editable = loaded?.kind === 'text' && !loaded.truncated;
  const onKeyDown = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
      e.preventDefault();
      void content.save();
    }
  };

  return (
    <Stack gap="xs" onKeyDownCapture={onKeyDown}>
      <Group justify="space-between">
        <Group gap="xs">
          <Button variant="default" leftSection={<IconArrowLeft size={16} />} onClick={onClose}>
            Back to the folder
          </Button>
          <Text size="sm" c="dimmed">
            {formatBytes(content.size)} · mode {file.mode}
          </Text>
          {dirty && (
            <Badge color="yellow" variant="light" role="status">
              Unsaved changes
            </Badge>
          )}
        </Group>
        <Group gap="xs">
          <Button variant="default" leftSection={<IconDownload size={16} />} onClick={content.download}>
            Download
          </Button>
          {editable && (
            <Button
              leftSection={<IconDeviceFloppy size={16} />}
              onClick={() => void content.save()}
              disabled={!dirty}
              loading={content.saving}
            >
              Save
            </Button>
          )}
        </Group>
      </Group>
      <QueryStates
        query={{
          data: loaded ?? undefined,
          error,
          isPending: !loaded && !error,
          isError: !!error,
          refetch: content.retry,
        }}
        what={file.path}
        loading={`Reading ${file.path}…`}
        failed={{ title: `Cannot read ${file.path}` }}
      >
        {(l) => <Contents file={file} loaded={l} content={content} />}
      </QueryStates>
    </Stack>
  );
}
