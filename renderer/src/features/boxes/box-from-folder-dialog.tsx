import { Alert, Anchor, Button, FileButton, Group, Progress, Stack, Text, TextInput } from '@mantine/core';
import { IconFolderOpen } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { paths } from '../../app/project';
import { notifyDone } from '../../app/notify';
import { formatBytes } from '../../kit/format';
import { LiveLog } from '../../kit/live-log';
import { ProblemAlert } from '../../kit/problem-alert';
import { TaskDialog } from '../../kit/task-dialog';
import { useOptionalName } from '../../kit/optional-name';
import { chooseFolder, type ChosenFolder } from './folder-tar';
import { useBoxUp } from './use-box-up';
import type { ProjectDialogProps } from '../../kit/dialog-props';

/** The folder picker (a folder upload in the browser) and what it took. */
function FolderField({
  folder,
  onPick,
  disabled,
  missing,
}: {
  folder: ChosenFolder | null;
  onPick(files: File[]): void;
  disabled: boolean;
  missing: boolean;
}) {
  return (
    <Stack gap={4}>
      <Group gap="sm">
        <FileButton
          multiple
          onChange={onPick}
          inputProps={{ 'aria-label': 'Project folder', ...({ webkitdirectory: '' } as object) }}
        >
          {(props) => (
            <Button {...props} variant="light" leftSection={<IconFolderOpen size={16} />} disabled={disabled}>
              Choose the project folder
            </Button>
          )}
        </FileButton>
        <Text size="sm" c="dimmed" aria-label="Chosen folder">
          {folder
            ? `${folder.name}: ${folder.files.length} file${folder.files.length === 1 ? '' : 's'}, ${formatBytes(folder.bytes)}` +
              (folder.leftOut ? ` (${folder.leftOut} left out by .gitignore, .boxdeskignore or .git)` : '')
            : 'its devcontainer.json, else its Dockerfile, else the default base'}
        </Text>
      </Group>
      {missing && (
        <Text size="xs" c="red" role="alert">
          Choose a folder
        </Text>
      )}
    </Stack>
  );
}

/** Where `box up` is: the upload's progress, then the core's phases and log, and how it ended. */
function UpProgress({ up, project }: { up: ReturnType<typeof useBoxUp>; project: string }) {
  const started = up.running || up.log !== '' || up.done || up.failure;
  if (!started && up.problem === null) return null;
  const percent = up.upload && up.upload.total ? Math.round((up.upload.sent / up.upload.total) * 100) : 0;
  const words = up.upload
    ? `Sending the folder: ${formatBytes(up.upload.sent)} of ${formatBytes(up.upload.total)}`
    : up.done
      ? `Box ${up.done.box} is ready`
      : up.failure
        ? up.failure === 'Cancelled'
          ? 'Cancelled'
          : 'Box up failed'
        : (up.phase ?? 'Sending the folder…');
  return (
    <Stack gap={4}>
      <Text size="sm" role="status" aria-label="Box up status">
        {words}
      </Text>
      {up.upload && <Progress value={percent} aria-label="Upload progress" />}
      {started && <LiveLog text={up.log} label="Box up log" waiting="Sending the folder…" />}
      {up.done && (
        <Alert color="green" title={`Box ${up.done.box} ${up.done.created ? 'made' : 'brought up to date'}`}>
          <Stack gap={2}>
            <Anchor component={Link} to={paths.box(project, up.done.box)}>
              Open box {up.done.box}
            </Anchor>
            {up.done.urls.map((u) => (
              <Text size="sm" key={u.port}>
                port {u.port}:{' '}
                <Anchor href={u.url} target="_blank" rel="noreferrer">
                  {u.url}
                </Anchor>
              </Text>
            ))}
            {up.done.exit_code !== 0 && (
              <Text size="sm" c="red">
                a lifecycle command exited {up.done.exit_code}: see the log
              </Text>
            )}
          </Stack>
        </Alert>
      )}
      {up.failure && up.failure !== 'Cancelled' && <ProblemAlert title="Box up failed" problem={up.failure} />}
      <ProblemAlert title="Could not make the box" problem={up.problem} />
    </Stack>
  );
}

/** "Box from folder": a project folder sent to `box up`, its progress and log live, cancel, the box at the end. */
export function BoxFromFolderDialog({ project, opened, onClose }: ProjectDialogProps) {
  const [folder, setFolder] = useState<ChosenFolder | null>(null);
  const name = useOptionalName();
  const [touched, setTouched] = useState(false);
  const up = useBoxUp(project);
  useEffect(() => {
    if (!opened) return;
    setFolder(null);
    name.setName('');
    setTouched(false);
    up.reset();
  }, [opened]);

  const submit = async () => {
    setTouched(true);
    if (!folder || name.error) return;
    const done = await up.start(folder, name.name || undefined);
    if (done) notifyDone(`Box ${done.box} is ready`, `${done.files} files in ${done.workspace}`, done.exit_code === 0);
  };

  return (
    <TaskDialog
      title="Box from folder"
      opened={opened}
      running={up.running}
      onClose={onClose}
      onSubmit={() => void submit()}
      onCancel={up.cancel}
      cancelLabel="Cancel"
      submitLabel="Make box"
    >
      <FolderField
        folder={folder}
        onPick={(files) => void chooseFolder(files).then(setFolder)}
        disabled={up.running}
        missing={touched && !folder}
      />
      <TextInput
        label="Name"
        description="optional: devcontainer.json's name, else the folder's; a box made by an earlier box up of the folder is brought up to date"
        {...name.inputProps}
        disabled={up.running}
      />
      <UpProgress up={up} project={project} />
    </TaskDialog>
  );
}
