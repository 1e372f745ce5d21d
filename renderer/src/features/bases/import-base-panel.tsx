import { Button, FileButton, Group, Paper, Progress, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconFileUpload, IconUpload } from '@tabler/icons-react';
import { useState } from 'react';
import { notifyDone } from '../../app/notify';
import { DropZone } from '../../kit/drop-zone';
import { FailureAlert } from '../../kit/failure-alert';
import { formatBytes } from '../../kit/format';
import { dnsLabelError } from '../../kit/validators';
import { useBaseImportProgress, useImportBase, type UploadProgress } from './use-bases';

/** The upload's bytes, then the core's unpacking of them (base.import events). */
function ImportProgress({ name, sent }: { name: string | null; sent: UploadProgress }) {
  const unpacking = useBaseImportProgress(name);
  const percent = sent.total > 0 ? Math.round((sent.sent / sent.total) * 100) : 0;
  return (
    <Stack gap={4} role="status" aria-label={`Importing ${name ?? ''}`}>
      <Text size="sm">
        {percent < 100
          ? `Uploading: ${formatBytes(sent.sent)} of ${formatBytes(sent.total)}`
          : 'Uploaded; the core is unpacking it'}
        {unpacking && !unpacking.done ? ` (${formatBytes(unpacking.bytes)} read)` : ''}
      </Text>
      <Progress value={percent} animated={percent >= 100} aria-label="Upload progress" />
    </Stack>
  );
}

/** Import a root filesystem tar as a base: a name, then a file dropped here or picked. */
export function ImportBasePanel() {
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const [importing, setImporting] = useState<string | null>(null);
  const upload = useImportBase();

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
          error={touched ? dnsLabelError(name) : null}
          errorProps={{ role: 'alert' }}
          autoComplete="off"
          disabled={upload.isPending}
          maw={400}
        />
        <DropZone label="Drop a root filesystem tar here" p="lg" dashed onFiles={(files) => start(files[0] ?? null)}>
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
        </DropZone>
        {upload.isPending && upload.upload && <ImportProgress name={importing} sent={upload.upload} />}
        <FailureAlert
          failure={
            upload.isError ? { title: `Could not import ${importing ?? 'the base'}`, error: upload.error } : null
          }
          onDismiss={() => upload.reset()}
        />
      </Stack>
    </Paper>
  );
}
