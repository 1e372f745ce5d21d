import { Stack, Text } from '@mantine/core';
import { useMemo, useState } from 'react';
import type { Snapshot } from '../../../../shared/schemas/snapshots';
import type { DetailTabProps } from '../../app/feature-module';
import { notifyDone } from '../../app/notify';
import { confirmDestroy, confirmNamedDelete } from '../../kit/confirm-destroy';
import { FailureAlert, type Failure } from '../../kit/failure-alert';
import { QueryStates } from '../../kit/query-states';
import { TitleBar } from '../../kit/title-bar';
import { useBoxes } from '../boxes/use-boxes';
import { buildLineage } from './lineage';
import { LineageTree, type SnapshotAction } from './lineage-tree';
import { SnapshotDialogs, type SnapshotDialog } from './snapshot-dialogs';
import { TakeSnapshotForm } from './take-snapshot-form';
import { useDeleteSnapshot, useProjectSnapshots, useRestoreBox } from './use-snapshots';

/** A box's snapshots and where they lead: take one, restore, fork, make a base, delete. */
export function SnapshotsTab({ box }: DetailTabProps) {
  const project = box.project;
  const snapshots = useProjectSnapshots(project);
  const boxes = useBoxes(project);
  const restore = useRestoreBox(project);
  const remove = useDeleteSnapshot(project);
  const [dialog, setDialog] = useState<SnapshotDialog | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const lineage = useMemo(
    () => buildLineage(box, snapshots.data ?? [], boxes.data ?? []),
    [box, snapshots.data, boxes.data],
  );
  const own = (snapshots.data ?? []).filter((s) => s.box_id === box.id).length;

  const onAction = (action: SnapshotAction, s: Snapshot) => {
    setFailure(null);
    if (action === 'fork' || action === 'base') setDialog({ action, snapshot: s });
    else if (action === 'restore')
      confirmDestroy({
        title: `Restore ${box.name} to ${s.name}?`,
        goes: "The box's root becomes this snapshot's; a running box restarts.",
        affects: 'Files changed since the snapshot are lost unless you take a snapshot first.',
        confirm: 'Restore',
        tone: 'change',
        run: () => restore.mutateAsync({ box: box.name, snapshot: s }),
        onDone: (b) => notifyDone(`Restored ${b.name}`, `${b.name}'s root is ${s.name}'s; it is ${b.status}.`),
      });
    else
      confirmNamedDelete('snapshot', s.name, {
        goes: 'Its root goes: nothing can be restored or forked from it afterwards.',
        affects:
          'Boxes, bases and snapshots that descend from it keep it alive: the delete is refused while they exist.',
        run: () => remove.mutateAsync(s),
        gone: 'The snapshot is gone.',
      });
  };

  return (
    <Stack maw={900}>
      <TakeSnapshotForm box={box} onFailure={(title, error) => setFailure({ title, error })} />
      <FailureAlert failure={failure} onDismiss={() => setFailure(null)} />
      <TitleBar order={3} title="Lineage" id="lineage-heading">
        <Text size="sm" c="dimmed">
          {own === 1 ? '1 snapshot of this box' : `${own} snapshots of this box`}
        </Text>
      </TitleBar>
      <QueryStates query={snapshots} what="the snapshots">
        {() => (
          <>
            <LineageTree nodes={lineage} project={project} box={box.name} onAction={onAction} />
            {own === 0 && (
              <Text size="sm">
                No snapshots of {box.name} yet. A snapshot keeps its root as it is now, to restore or fork later.
              </Text>
            )}
          </>
        )}
      </QueryStates>
      <SnapshotDialogs project={project} dialog={dialog} onClose={() => setDialog(null)} />
    </Stack>
  );
}
