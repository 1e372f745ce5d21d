import { Anchor, Button, Checkbox, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconPlugConnected } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { Box } from '../../../../shared/schemas/box';
import { describeError } from '../../api/session';
import { notifyDone } from '../../app/notify';
import { FailureAlert } from '../../kit/failure-alert';
import { fieldProps } from '../../kit/field-props';
import { useProblemAtFields } from '../../kit/form-dialog';
import { mountPathError } from './mount-rows';
import { useAttachVolume, useVolumes } from './use-volumes';

export const volumesPath = (project: string) => `/projects/${project}/volumes`;

const pathField = (path: string) => (/(^|\.)path$/.test(path) ? ('path' as const) : null);

/** Why no volume can be picked: the list failed, or the project has none yet. */
function VolumesNote({ project, volumes }: { project: string; volumes: ReturnType<typeof useVolumes> }) {
  return (
    <>
      {volumes.isError && (
        <Text size="sm" c="red" role="alert">
          Could not load the volumes: {describeError(volumes.error)}
        </Text>
      )}
      {volumes.data?.length === 0 && (
        <Text size="sm" c="dimmed">
          This project has no volume yet:{' '}
          <Anchor component={Link} to={volumesPath(project)}>
            create one on the Volumes page
          </Anchor>
          .
        </Text>
      )}
    </>
  );
}

/** Attach one of the project's other volumes at a path (read-only or not); a refusal about the path lands there. */
export function AttachVolumeForm({
  box,
  attach,
  disabled,
}: {
  box: Box;
  attach: ReturnType<typeof useAttachVolume>;
  disabled: boolean;
}) {
  const volumes = useVolumes(box.project);
  const mounts = box.data_mounts ?? [];
  const free = (volumes.data ?? []).filter((v) => !mounts.some((m) => m.name === v.name)).map((v) => v.name);
  const form = useForm({
    initialValues: { volume: null as string | null, path: '', read_only: false },
    validateInputOnChange: ['path'],
    validate: {
      volume: (v) => (v ? null : 'Pick a volume'),
      path: (v) => (v === '' ? 'A path in the box, e.g. /data' : mountPathError(v)),
    },
  });
  const general = useProblemAtFields(form, attach.error, pathField);

  const submit = form.onSubmit((v) =>
    attach.mutate(
      { name: v.volume!, body: { box: box.name, path: v.path, read_only: v.read_only } },
      {
        onSuccess: () => {
          notifyDone(`Attached ${v.volume}`, `${box.name} sees it at ${v.path}.`);
          form.reset();
        },
      },
    ),
  );

  return (
    <form onSubmit={submit} noValidate aria-label="Attach a volume">
      <Stack gap="xs">
        <Title order={3} size="h5">
          Attach a volume
        </Title>
        <Group align="start" gap="sm">
          <Select
            label="Volume"
            placeholder={volumes.isPending ? 'loading…' : 'pick one'}
            data={free}
            nothingFoundMessage="No other volume in this project"
            {...fieldProps(form, 'volume')}
            w={220}
          />
          <TextInput label="Path in the box" placeholder="/data" {...fieldProps(form, 'path')} w={260} />
          <Checkbox label="Read-only" mt={32} {...form.getInputProps('read_only', { type: 'checkbox' })} />
          <Button
            type="submit"
            mt={24}
            leftSection={<IconPlugConnected size={16} />}
            loading={attach.isPending}
            disabled={disabled}
          >
            Attach
          </Button>
        </Group>
        <FailureAlert
          failure={
            general ? { title: `Could not attach ${attach.variables?.name ?? 'the volume'}`, error: general } : null
          }
          onDismiss={() => attach.reset()}
        />
        <VolumesNote project={box.project} volumes={volumes} />
      </Stack>
    </form>
  );
}
