import {
  Alert,
  Button,
  Code,
  FileButton,
  Group,
  Modal,
  ScrollArea,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { IconFolderOpen } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { notifyDone } from '../../app/notify';
import { describeError } from '../../api/session';
import { dnsLabelError } from '../../kit/validators';
import { useBuildBase } from './use-build-base';

const STARTER = 'FROM boxdesk/default\nRUN echo hello from the build\n';

/** K=V lines, blank ones left out; the first line that is not K=V, if any. */
function parseArgs(text: string): { args: string[]; wrong: string | null } {
  const args = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return { args, wrong: args.find((a) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) ?? null };
}

/** The build's log as it streams, kept scrolled to its end. */
function BuildLog({ text }: { text: string }) {
  const viewport = useRef<HTMLDivElement>(null);
  useEffect(() => {
    viewport.current?.scrollTo({ top: viewport.current.scrollHeight });
  }, [text]);
  return (
    <ScrollArea h={240} viewportRef={viewport} type="auto">
      <Code block role="log" aria-label="Build log" style={{ whiteSpace: 'pre-wrap', minHeight: 240 }}>
        {text || 'Waiting for the engine…'}
      </Code>
    </ScrollArea>
  );
}

/** "New base from Dockerfile": the Dockerfile, an optional context folder, build arguments; the log live; cancel. */
export function BuildBaseDialog({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const [name, setName] = useState('');
  const [dockerfile, setDockerfile] = useState(STARTER);
  const [argsText, setArgsText] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [touched, setTouched] = useState(false);
  const run = useBuildBase();
  const building = run.sending || run.build?.status === 'building';
  const { args, wrong } = parseArgs(argsText);
  const nameError = touched ? dnsLabelError(name) : null;

  useEffect(() => {
    if (!opened) return;
    setName('');
    setDockerfile(STARTER);
    setArgsText('');
    setFiles([]);
    setTouched(false);
    run.reset();
  }, [opened]);

  const submit = async () => {
    setTouched(true);
    if (dnsLabelError(name) !== null || wrong !== null || dockerfile.trim() === '') return;
    const ended = await run.start({ name, dockerfile, files, buildArgs: args });
    if (ended?.status === 'done') notifyDone(`Base ${ended.base} built`, 'New boxes can start from it.');
  };

  const status = run.build?.status;
  return (
    <Modal
      opened={opened}
      onClose={() => !building && onClose()}
      title="New base from Dockerfile"
      size="xl"
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form
        aria-label="New base from Dockerfile"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Stack gap="sm">
          <TextInput
            label="Name"
            description="lower-case letters, digits and hyphens; a base that exists is rebuilt"
            value={name}
            onChange={(e) => {
              setName(e.currentTarget.value);
              setTouched(true);
            }}
            error={nameError}
            errorProps={{ role: 'alert' }}
            autoComplete="off"
            disabled={building}
          />
          <Textarea
            label="Dockerfile"
            description="FROM boxdesk/<base> starts from a Boxdesk base, offline"
            value={dockerfile}
            onChange={(e) => setDockerfile(e.currentTarget.value)}
            autosize
            minRows={5}
            maxRows={14}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            error={touched && dockerfile.trim() === '' ? 'Write the Dockerfile' : null}
            disabled={building}
          />
          <Group gap="sm">
            <FileButton
              multiple
              onChange={setFiles}
              inputProps={{ 'aria-label': 'Context folder', ...({ webkitdirectory: '' } as object) }}
            >
              {(props) => (
                <Button
                  {...props}
                  variant="light"
                  size="xs"
                  leftSection={<IconFolderOpen size={14} />}
                  disabled={building}
                >
                  Choose a context folder
                </Button>
              )}
            </FileButton>
            <Text size="sm" c="dimmed">
              {files.length
                ? `${files.length} file${files.length === 1 ? '' : 's'}: COPY takes them`
                : 'optional: the files COPY and ADD take'}
            </Text>
          </Group>
          <Textarea
            label="Build arguments"
            description="one NAME=VALUE a line (ARG in the Dockerfile)"
            value={argsText}
            onChange={(e) => setArgsText(e.currentTarget.value)}
            autosize
            minRows={1}
            maxRows={4}
            error={wrong ? `"${wrong}" is not NAME=VALUE` : null}
            errorProps={{ role: 'alert' }}
            disabled={building}
          />
          {(run.build || run.sending) && (
            <Stack gap={4}>
              <Text size="sm" role="status" aria-label="Build status">
                {run.sending
                  ? 'Sending the context…'
                  : status === 'building'
                    ? `Building${run.build?.step ? `: step ${run.build.step}` : ''}…`
                    : status === 'done'
                      ? `Built: base ${run.build?.base} is ready`
                      : status === 'cancelled'
                        ? 'Cancelled: nothing was kept'
                        : 'The build failed'}
              </Text>
              <BuildLog text={run.log} />
            </Stack>
          )}
          {status === 'failed' && (
            <Alert color="red" title="The build failed" role="alert">
              <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                {run.build?.error}
              </Text>
            </Alert>
          )}
          {run.problem !== null && (
            <Alert color="red" title="Could not build the base" role="alert">
              <Text size="sm">{describeError(run.problem)}</Text>
            </Alert>
          )}
          <Group justify="flex-end">
            {building ? (
              <Button variant="default" color="red" onClick={() => void run.cancel()} disabled={run.sending}>
                Cancel build
              </Button>
            ) : (
              <Button variant="default" onClick={onClose}>
                Close
              </Button>
            )}
            <Button type="submit" loading={building}>
              Build base
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
