import {
  ActionIcon,
  Alert,
  Anchor,
  Button,
  Checkbox,
  Code,
  Group,
  Loader,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  Tooltip,
  VisuallyHidden,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { modals } from '@mantine/modals';
import { IconInfoCircle, IconPlugConnected, IconUnlink } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../../../../shared/errors';
import { describeError } from '../../api/session';
import { useAttachVolume, useDetachVolume, useVolumes } from '../../api/volumes';
import { notifyDone } from '../../app/notify';
import { paths } from '../../app/project';
import type { DetailTabProps } from '../boxes/detail-tabs';
import { mountPathError } from './mount-rows';

const RESTART_NOTE =
  'Attaching or detaching recreates the box’s container: a running box restarts (its root files are kept, running processes are not).';

/** The box's data volumes: attach one at a path (read-only or not), detach one. */
export function VolumeMountsTab({ box }: DetailTabProps) {
  const project = box.project;
  const volumes = useVolumes(project);
  const attach = useAttachVolume(project);
  const detach = useDetachVolume(project);
  const [failure, setFailure] = useState<{ title: string; error: unknown } | null>(null);
  const mounts = box.data_mounts ?? [];
  const form = useForm({
    initialValues: { volume: null as string | null, path: '', read_only: false },
    validateInputOnChange: ['path'],
    validate: {
      volume: (v) => (v ? null : 'Pick a volume'),
      path: (v) => (v === '' ? 'A path in the box, e.g. /data' : mountPathError(v)),
    },
  });
  const free = (volumes.data ?? []).filter((v) => !mounts.some((m) => m.name === v.name)).map((v) => v.name);

  const submit = form.onSubmit((v) => {
    setFailure(null);
    attach.mutate(
      { name: v.volume!, body: { box: box.name, path: v.path, read_only: v.read_only } },
      {
        onSuccess: () => {
          notifyDone(`Attached ${v.volume}`, `${box.name} sees it at ${v.path}.`);
          form.reset();
        },
        onError: (error) => {
          const atPath =
            error instanceof ApiError ? (error.errors ?? []).find((e) => /(^|\.)path$/.test(e.path)) : undefined;
          if (atPath) form.setFieldError('path', atPath.message);
          else setFailure({ title: `Could not attach ${v.volume}`, error });
        },
      },
    );
  });

  const confirmDetach = (name: string) =>
    modals.openConfirmModal({
      title: `Detach ${name} from ${box.name}?`,
      children: <Text size="sm">{RESTART_NOTE} The volume keeps its data and can be attached again.</Text>,
      labels: { confirm: 'Detach', cancel: 'Cancel' },
      confirmProps: { color: 'orange' },
      onConfirm: () => {
        setFailure(null);
        detach.mutate(
          { name, box: box.name },
          {
            onSuccess: () => notifyDone(`Detached ${name}`, `${box.name} no longer mounts it.`),
            onError: (error) => setFailure({ title: `Could not detach ${name}`, error }),
          },
        );
      },
    });

  const busy = attach.isPending || detach.isPending;
  return (
    <Stack gap="md" maw={900}>
      <Alert variant="light" color="blue" icon={<IconInfoCircle size={18} />} title="A running box restarts">
        {RESTART_NOTE}
      </Alert>
      {failure && (
        <Alert
          color="red"
          role="alert"
          title={failure.title}
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={() => setFailure(null)}
        >
          {describeError(failure.error)}
        </Alert>
      )}
      {busy && (
        <Group gap="xs" role="status" aria-label="Changing mounts">
          <Loader size="xs" />
          <Text size="sm">
            {attach.isPending ? `Attaching ${attach.variables?.name}` : `Detaching ${detach.variables?.name}`}:
            recreating {box.name}’s container…
          </Text>
        </Group>
      )}
      {mounts.length === 0 ? (
        <Text size="sm" c="dimmed">
          {box.name} mounts no data volume.
        </Text>
      ) : (
        <Table aria-label={`Volumes mounted in ${box.name}`} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Volume</Table.Th>
              <Table.Th>Path</Table.Th>
              <Table.Th>Access</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {mounts.map((m) => (
              <Table.Tr key={m.name}>
                <Table.Th scope="row">{m.name}</Table.Th>
                <Table.Td>
                  <Code>{m.path}</Code>
                </Table.Td>
                <Table.Td>{m.read_only ? 'read-only' : 'read-write'}</Table.Td>
                <Table.Td>
                  <Tooltip label="Detach">
                    <ActionIcon
                      variant="subtle"
                      color="orange"
                      aria-label={`Detach ${m.name}`}
                      disabled={busy}
                      onClick={() => confirmDetach(m.name)}
                    >
                      <IconUnlink size={16} />
                    </ActionIcon>
                  </Tooltip>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
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
              {...form.getInputProps('volume')}
              errorProps={{ role: 'alert' }}
              w={220}
            />
            <TextInput
              label="Path in the box"
              placeholder="/data"
              {...form.getInputProps('path')}
              errorProps={{ role: 'alert' }}
              w={260}
            />
            <Checkbox label="Read-only" mt={32} {...form.getInputProps('read_only', { type: 'checkbox' })} />
            <Button
              type="submit"
              mt={24}
              leftSection={<IconPlugConnected size={16} />}
              loading={attach.isPending}
              disabled={detach.isPending}
            >
              Attach
            </Button>
          </Group>
          {volumes.isError && (
            <Text size="sm" c="red" role="alert">
              Could not load the volumes: {describeError(volumes.error)}
            </Text>
          )}
          {volumes.data?.length === 0 && (
            <Text size="sm" c="dimmed">
              This project has no volume yet:{' '}
              <Anchor component={Link} to={paths.volumes(project)}>
                create one on the Volumes page
              </Anchor>
              .
            </Text>
          )}
        </Stack>
      </form>
    </Stack>
  );
}
