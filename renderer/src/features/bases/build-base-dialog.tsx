import { Button, FileButton, Group, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { IconFolderOpen } from '@tabler/icons-react';
import { useEffect, useState, type ChangeEvent } from 'react';
import { notifyDone } from '../../app/notify';
import { LiveLog } from '../../kit/live-log';
import { ProblemAlert } from '../../kit/problem-alert';
import { TaskDialog } from '../../kit/task-dialog';
import { dnsLabelError } from '../../kit/validators';
import { useBuildBase } from './use-build-base';
import type { DialogProps } from '../../kit/dialog-props';

const STARTER = 'FROM boxdesk/default\nRUN echo hello from the build\n';

/** K=V lines, blank ones left out; the first line that is not K=V, if any. */
function parseArgs(text: string): { args: string[]; wrong: string | null } {
  const args = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return { args, wrong: args.find((a) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) ?? null };
}

interface Fields {
  name: string;
  dockerfile: string;
  argsText: string;
  files: File[];
}

const EMPTY: Fields = { name: '', dockerfile: STARTER, argsText: '', files: [] };

/** The name, the Dockerfile, the context folder and the build arguments. */
function BuildFields({
  fields,
  set,
  touched,
  disabled,
}: {
  fields: Fields;
  set(change: Partial<Fields>): void;
  touched: boolean;
  disabled: boolean;
}) {
  const { wrong } = parseArgs(fields.argsText);
  const count = fields.files.length;
  // What the two text areas share: the field they edit, growing with their text, off while building.
  const area = (key: 'dockerfile' | 'argsText', minRows: number, maxRows: number) => ({
    value: fields[key],
    onChange: (e: ChangeEvent<HTMLTextAreaElement>) => set({ [key]: e.currentTarget.value }),
    autosize: true,
    minRows,
    maxRows,
    disabled,
  });
  return (
    <>
      <TextInput
        label="Name"
        description="lower-case letters, digits and hyphens; a base that exists is rebuilt"
        value={fields.name}
        onChange={(e) => set({ name: e.currentTarget.value })}
        error={touched ? dnsLabelError(fields.name) : null}
        errorProps={{ role: 'alert' }}
        autoComplete="off"
        disabled={disabled}
      />
      <Textarea
        label="Dockerfile"
        description="FROM boxdesk/<base> starts from a Boxdesk base, offline"
        {...area('dockerfile', 5, 14)}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        error={touched && fields.dockerfile.trim() === '' ? 'Write the Dockerfile' : null}
      />
      <Group gap="sm">
        <FileButton
          multiple
          onChange={(files) => set({ files })}
          inputProps={{ 'aria-label': 'Context folder', ...({ webkitdirectory: '' } as object) }}
        >
          {(props) => (
            <Button {...props} variant="light" size="xs" leftSection={<IconFolderOpen size={14} />} disabled={disabled}>
              Choose a context folder
            </Button>
          )}
        </FileButton>
        <Text size="sm" c="dimmed">
          {count ? `${count} file${count === 1 ? '' : 's'}: COPY takes them` : 'optional: the files COPY and ADD take'}
        </Text>
      </Group>
      <Textarea
        label="Build arguments"
        description="one NAME=VALUE a line (ARG in the Dockerfile)"
        {...area('argsText', 1, 4)}
        error={wrong ? `"${wrong}" is not NAME=VALUE` : null}
        errorProps={{ role: 'alert' }}
      />
    </>
  );
}

/** Where the build is, its log, and why it failed. */
function BuildProgress({ run }: { run: ReturnType<typeof useBuildBase> }) {
  const status = run.build?.status;
  const words = run.sending
    ? 'Sending the context…'
    : status === 'building'
      ? `Building${run.build?.step ? `: step ${run.build.step}` : ''}…`
      : status === 'done'
        ? `Built: base ${run.build?.base} is ready`
        : status === 'cancelled'
          ? 'Cancelled: nothing was kept'
          : 'The build failed';
  return (
    <>
      {(run.build || run.sending) && (
        <Stack gap={4}>
          <Text size="sm" role="status" aria-label="Build status">
            {words}
          </Text>
          <LiveLog text={run.log} label="Build log" waiting="Waiting for the engine…" />
        </Stack>
      )}
      {status === 'failed' && <ProblemAlert title="The build failed" problem={run.build?.error ?? ''} />}
      <ProblemAlert title="Could not build the base" problem={run.problem} />
    </>
  );
}

/** "New base from Dockerfile": the Dockerfile, an optional context folder, build arguments; the log live; cancel. */
export function BuildBaseDialog({ opened, onClose }: DialogProps) {
  const [fields, setFields] = useState<Fields>(EMPTY);
  const [touched, setTouched] = useState(false);
  const run = useBuildBase();
  const building = run.sending || run.build?.status === 'building';
  const set = (change: Partial<Fields>) => {
    setFields((f) => ({ ...f, ...change }));
    if (change.name !== undefined) setTouched(true);
  };
  useEffect(() => {
    if (!opened) return;
    setFields(EMPTY);
    setTouched(false);
    run.reset();
  }, [opened]);

  const submit = async () => {
    setTouched(true);
    const { args, wrong } = parseArgs(fields.argsText);
    if (dnsLabelError(fields.name) !== null || wrong !== null || fields.dockerfile.trim() === '') return;
    const { name, dockerfile, files } = fields;
    const ended = await run.start({ name, dockerfile, files, buildArgs: args });
    if (ended?.status === 'done') notifyDone(`Base ${ended.base} built`, 'New boxes can start from it.');
  };

  return (
    <TaskDialog
      title="New base from Dockerfile"
      opened={opened}
      running={building}
      onClose={onClose}
      onSubmit={() => void submit()}
      onCancel={() => void run.cancel()}
      cancelLabel="Cancel build"
      cancelDisabled={run.sending}
      submitLabel="Build base"
    >
      <BuildFields fields={fields} set={set} touched={touched} disabled={building} />
      <BuildProgress run={run} />
    </TaskDialog>
  );
}
