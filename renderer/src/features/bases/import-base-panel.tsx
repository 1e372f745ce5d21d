import { Alert, Button, FileButton, Group, Paper, Progress, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconFileUpload, IconUpload } from '@tabler/icons-react';
import { useState, type DragEvent } from 'react';
import { useBaseImportProgress, useImportBase } from '../../api/bases';
import { describeError } from '../../api/session';
import { notifyDone } from '../../app/notify';
import { formatBytes } from '../snapshots/format';
import { dnsLabelError } from '../snapshots/name-dialog';

/** Import a root filesystem tar as a base: a name, then a file dropped here or picked. */
export function ImportBasePanel() {
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const [dragging, setDragging] = useState(false);
  const [importing, setImporting] = useState<string | null>(null);
  const upload = useImportBase();
  const unpacking = useBaseImportProgress(importing);
  const nameError = touched ? dnsLabelError(name) : null;

  const start = (file: File | null) => {
    setTouched(true);
    if (!file || dnsLabelError(name) !== null || upload.isPending) return;
    const target = name;
    setImporting(target);
    upload.mutate(
      { name: target, file },
      {
        onSuccess: (base) => {
          setName('');
          setTouched(false);
          notifyDone(`Base ${base.name} imported`, `${file.name} is now a base boxes can start from.`);
        },
      },
    );
  };
  const onDrop = (e: DragEvent<HTMLDivElement>) => {
    e.preventDefault();
    setDragging(false);
    start(e.dataTransfer.files[0] ?? null);
  };

  const sent = upload.upload;
  const percent = sent && sent.total > 0 ? Math.round((sent.sent / sent.total) * 100) : 0;
  return (
    <Paper withBorder p="md" maw={900} component="section" aria-labelledby="import-base-heading">
      <Stack gap="sm">
        <Title order={3} size="h4" id="import-base-heading">
          Import a root filesystem
        </Title>
        <TextInput
          label="Name of the imported base"
          description="lower-case letters, digits and hyphens"
          value={name}
          onChange={(e) => {
            setName(e.currentTarget.value);
            setTouched(true);
          }}
          error={nameError}
          errorProps={{ role: 'alert' }}
          autoComplete="off"
          disabled={upload.isPending}
          maw={400}
        />
        <Paper
          role="region"
          aria-label="Drop a root filesystem tar here"
          withBorder
          p="lg"
          bg={dragging ? 'var(--mantine-primary-color-light)' : undefined}
          style={{ borderStyle: 'dashed' }}
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <Group justify="center" gap="sm">
            <IconUpload size={20} aria-hidden />
            <Text size="sm">Drop a .tar of a root filesystem here, or</Text>
            <FileButton onChange={start} accept=".tar,application/x-tar">
              {(props) => (
                <Button
                  {...props}
                  variant="light"
                  size="xs"
                  leftSection={<IconFileUpload size={14} />}
                  disabled={upload.isPending}
                >
                  Choose a tar file
                </Button>
              )}
            </FileButton>
          </Group>
        </Paper>
        {upload.isPending && sent && (
          <Stack gap={4} role="status" aria-label={`Importing ${importing ?? ''}`}>
            <Text size="sm">
              {percent < 100
                ? `Uploading: ${formatBytes(sent.sent)} of ${formatBytes(sent.total)}`
                : 'Uploaded; the core is unpacking it'}
              {unpacking && !unpacking.done ? ` (${formatBytes(unpacking.bytes)} read)` : ''}
            </Text>
            <Progress value={percent} animated={percent >= 100} aria-label="Upload progress" />
          </Stack>
        )}
        {upload.isError && (
          <Alert
            color="red"
            role="alert"
            title={`Could not import ${importing ?? 'the base'}`}
            withCloseButton
            closeButtonLabel="Dismiss"
            onClose={() => upload.reset()}
          >
            {describeError(upload.error)}
          </Alert>
        )}
      </Stack>
    </Paper>
  );
}
