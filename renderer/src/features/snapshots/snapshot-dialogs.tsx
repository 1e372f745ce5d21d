import { useEffect, useRef } from 'react';
import type { Snapshot } from '../../../../shared/schemas/snapshots';
import { notifyDone } from '../../app/notify';
import { useCreateBase } from '../bases/use-bases';
import { NameDialog, type NameDialogText } from './name-dialog';
import { useForkSnapshot } from './use-snapshots';

export interface SnapshotDialog {
  action: 'fork' | 'base';
  snapshot: Snapshot;
}

const TEXT: Record<SnapshotDialog['action'], (snapshot: string) => NameDialogText> = {
  fork: (snapshot) => ({
    title: `Fork ${snapshot} into a new box`,
    label: 'New box name',
    description: "A new box whose root is a copy of this snapshot's; it starts right away.",
    submitLabel: 'Fork',
    errorTitle: 'Could not create the box',
    pendingText: 'Creating the box: starting its container…',
  }),
  base: (snapshot) => ({
    title: `Make a base from ${snapshot}`,
    label: 'Base name',
    description: "New boxes can start from this snapshot's root.",
    submitLabel: 'Make base',
    errorTitle: 'Could not make the base',
    pendingText: 'Making the base…',
  }),
};

/** Fork a snapshot into a new box, or make a base of it: each asks for a name. */
export function SnapshotDialogs({
  project,
  dialog,
  onClose,
}: {
  project: string;
  dialog: SnapshotDialog | null;
  onClose(): void;
}) {
  const fork = useForkSnapshot(project);
  const makeBase = useCreateBase();
  // The words stay those of the last dialog while it closes.
  const last = useRef<SnapshotDialog | null>(null);
  if (dialog) last.current = dialog;
  const shown = dialog ?? last.current;
  const mutation = shown?.action === 'base' ? makeBase : fork;
  // Each opening starts without the last one's failure.
  useEffect(() => {
    fork.reset();
    makeBase.reset();
  }, [dialog]);

  const submit = (name: string) => {
    if (!dialog) return;
    const s = dialog.snapshot;
    const done = (title: string, message: string) => {
      onClose();
      notifyDone(title, message);
    };
    if (dialog.action === 'fork')
      fork.mutate(
        { name, snapshot: s },
        { onSuccess: (b) => done(`Created ${b.name}`, `${b.name} starts from ${s.name}; it is ${b.status}.`) },
      );
    else
      makeBase.mutate(
        { name, from_snapshot: s.id },
        { onSuccess: (b) => done(`Base ${b.name} made`, `New boxes can start from ${s.name}'s root.`) },
      );
  };
  return (
    <NameDialog
      opened={dialog !== null}
      text={TEXT[shown?.action ?? 'fork'](shown?.snapshot.name ?? '')}
      pending={mutation.isPending}
      error={mutation.error}
      onSubmit={submit}
      onClose={onClose}
    />
  );
}
