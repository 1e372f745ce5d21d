import { Alert, Button, Center, Group, Loader, Paper, Progress, Stack, Text, TextInput, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconCamera } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import type { Snapshot } from '../../../../shared/schemas/snapshots';
import { useCreateBase } from '../../api/bases';
import { useBoxes } from '../../api/boxes';
import { describeError } from '../../api/session';
import {
  useDeleteSnapshot,
  useForkSnapshot,
  useProjectSnapshots,
  useRestoreBox,
  useTakeSnapshot,
} from '../../api/snapshots';
import { notifyDone } from '../../app/notify';
import type { DetailTabProps } from '../boxes/detail-tabs';
import { buildLineage } from './lineage';
import { LineageTree, type SnapshotAction } from './lineage-tree';
import { dnsLabelError, NameDialog } from './name-dialog';

/** A box's snapshots and where they lead: take one, restore, fork, make a base, delete. */
export function SnapshotsTab({ box }: DetailTabProps) {
  const project = box.project;
  const snapshots = useProjectSnapshots(project);
  const boxes = useBoxes(project);
  const take = useTakeSnapshot(project, box.name);
  const restore = useRestoreBox(project);
  const remove = useDeleteSnapshot(project);
  const fork = useForkSnapshot(project);
  const makeBase = useCreateBase();
  const [name, setName] = useState('');
  const [dialog, setDialog] = useState<{ action: 'fork' | 'base'; snapshot: Snapshot } | null>(null);
  const [failure, setFailure] = useState<{ title: string; error: unknown } | null>(null);

  const lineage = useMemo(
    () => buildLineage(box, snapshots.data ?? [], boxes.data ?? []),
    [box, snapshots.data, boxes.data],
  );
  const own = (snapshots.data ?? []).filter((s) => s.box === box.name).length;
  const nameError = name === '' ? null : dnsLabelError(name);

  const takeSnapshot = () => {
    setFailure(null);
    take.mutate(name || undefined, {
      onSuccess: (s) => {
        setName('');
        notifyDone(`Snapshot ${s.name} taken`, `${box.name}'s root as it was just now.`);
      },
      onError: (error) => setFailure({ title: `Could not snapshot ${box.name}`, error }),
    });
  };

  const onAction = (action: SnapshotAction, s: Snapshot) => {
    setFailure(null);
    if (action === 'fork' || action === 'base') {
      fork.reset();
      makeBase.reset();
      setDialog({ action, snapshot: s });
    } else if (action === 'restore')
      modals.openConfirmModal({
        title: `Restore ${box.name} to ${s.name}?`,
        children: (
          <Text size="sm">
            The box's root becomes this snapshot's; a running box restarts. Files changed since the snapshot are lost
            unless you take a snapshot first.
          </Text>
        ),
        labels: { confirm: 'Restore', cancel: 'Cancel' },
        confirmProps: { color: 'orange' },
        onConfirm: () =>
          restore.mutate(
            { box: box.name, snapshot: s },
            {
              onSuccess: (b) => notifyDone(`Restored ${b.name}`, `${b.name}'s root is ${s.name}'s; it is ${b.status}.`),
              onError: (error) => setFailure({ title: `Could not restore ${box.name}`, error }),
            },
          ),
      });
    else
      modals.openConfirmModal({
        title: `Delete the snapshot ${s.name}?`,
        children: (
          <Text size="sm">
            Boxes, bases and snapshots that descend from it keep it alive: the delete is refused while they exist.
          </Text>
        ),
        labels: { confirm: 'Delete snapshot', cancel: 'Cancel' },
        confirmProps: { color: 'red' },
        onConfirm: () =>
          remove.mutate(s, {
            onSuccess: () => notifyDone(`Deleted ${s.name}`, 'The snapshot is gone.'),
            onError: (error) => setFailure({ title: `Could not delete ${s.name}`, error }),
          }),
      });
  };

  const submitDialog = (value: string) => {
    if (!dialog) return;
    const done = () => setDialog(null);
    if (dialog.action === 'fork')
      fork.mutate(
        { name: value, snapshot: dialog.snapshot },
        {
          onSuccess: (b) => (
            done(),
            notifyDone(`Created ${b.name}`, `${b.name} starts from ${dialog.snapshot.name}; it is ${b.status}.`)
          ),
        },
      );
    else
      makeBase.mutate(
        { name: value, from_snapshot: dialog.snapshot.id },
        {
          onSuccess: (b) => (
            done(),
            notifyDone(`Base ${b.name} made`, `New boxes can start from ${dialog.snapshot.name}'s root.`)
          ),
        },
      );
  };

  return (
    <Stack maw={900}>
      <Paper withBorder p="sm">
        <form
          aria-label="Take a snapshot"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            if (!nameError && !take.isPending) takeSnapshot();
          }}
        >
          <Group align="flex-end">
            <TextInput
              label="Snapshot name"
              description="optional; one is made up when empty"
              placeholder="before-upgrade"
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={nameError}
              errorProps={{ role: 'alert' }}
              autoComplete="off"
              style={{ flex: 1 }}
              disabled={take.isPending}
            />
            <Button
              type="submit"
              leftSection={<IconCamera size={16} />}
              loading={take.isPending}
              disabled={nameError !== null}
            >
              Take snapshot
            </Button>
          </Group>
          {take.isPending && (
            <Stack gap={4} mt="sm" role="status" aria-label={`Taking a snapshot of ${box.name}`}>
              <Text size="sm">Taking a snapshot of {box.name}: committing its root…</Text>
              <Progress value={100} animated aria-hidden />
            </Stack>
          )}
        </form>
      </Paper>

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

      <Group justify="space-between">
        <Title order={3} size="h4" id="lineage-heading">
          Lineage
        </Title>
        <Text size="sm" c="dimmed">
          {own === 1 ? '1 snapshot of this box' : `${own} snapshots of this box`}
        </Text>
      </Group>
      {snapshots.isPending && (
        <Center role="status">
          <Loader size="sm" mr="sm" /> Loading snapshots…
        </Center>
      )}
      {snapshots.isError && (
        <Alert color="red" role="alert" title="Could not load the snapshots">
          {describeError(snapshots.error)}
        </Alert>
      )}
      {snapshots.data && <LineageTree nodes={lineage} project={project} box={box.name} onAction={onAction} />}
      {snapshots.data && own === 0 && (
        <Text size="sm">
          No snapshots of {box.name} yet. A snapshot keeps its root as it is now, to restore or fork later.
        </Text>
      )}

      <NameDialog
        opened={dialog?.action === 'fork'}
        title={`Fork ${dialog?.snapshot.name ?? ''} into a new box`}
        label="New box name"
        description="A new box whose root is a copy of this snapshot's; it starts right away."
        submitLabel="Fork"
        errorTitle="Could not create the box"
        pendingText="Creating the box: starting its container…"
        pending={fork.isPending}
        error={fork.error}
        onSubmit={submitDialog}
        onClose={() => setDialog(null)}
      />
      <NameDialog
        opened={dialog?.action === 'base'}
        title={`Make a base from ${dialog?.snapshot.name ?? ''}`}
        label="Base name"
        description="New boxes can start from this snapshot's root."
        submitLabel="Make base"
        errorTitle="Could not make the base"
        pendingText="Making the base…"
        pending={makeBase.isPending}
        error={makeBase.error}
        onSubmit={submitDialog}
        onClose={() => setDialog(null)}
      />
    </Stack>
  );
}
