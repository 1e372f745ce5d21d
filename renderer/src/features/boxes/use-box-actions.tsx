import { List } from '@mantine/core';
import { describeError } from '../../api/session';
import { notifyDone } from '../../app/notify';
import { confirmDestroy } from '../../kit/confirm-destroy';
import { useBoxAction, type BoxAction } from './use-boxes';

const DONE: Record<BoxAction, string> = { stop: 'Stopped', resume: 'Resumed', pause: 'Paused', delete: 'Deleted' };

function what(names: string[]): string {
  return names.length === 1 ? names[0]! : `${names.length} boxes`;
}

type Failures = { name: string; error: unknown }[];

/** One line per box that failed, and why. */
function failureText(failures: Failures): string {
  return failures.map((f) => `${f.name}: ${describeError(f.error)}`).join('\n');
}

/** Stop, resume, pause and delete (after a confirmation) one box or several, with a notification when done. */
export function useBoxActions(project: string) {
  const mutation = useBoxAction(project);

  const run = async (names: string[], action: BoxAction): Promise<boolean> => {
    if (names.length === 0) return true;
    const failures = await mutation.mutateAsync({ names, action });
    if (failures.length === 0) {
      notifyDone(`${DONE[action]} ${what(names)}`, `${DONE[action]} in project ${project}.`);
      return true;
    }
    const which = failures.length === 1 ? failures[0]!.name : `${failures.length} of ${names.length} boxes`;
    notifyDone(`Could not ${action} ${which}`, failureText(failures), false);
    return false;
  };

  const confirmDelete = (names: string[], onDone?: () => void) =>
    confirmDestroy({
      title: names.length === 1 ? `Delete the box ${names[0]}?` : `Delete ${names.length} boxes?`,
      goes: (
        <>
          {names.length === 1 ? 'Its' : 'Their'} root files, consoles and logs are gone for good.
          {names.length > 1 && (
            <List size="sm" mt="xs" mah={200} style={{ overflow: 'auto' }}>
              {names.map((n) => (
                <List.Item key={n}>{n}</List.Item>
              ))}
            </List>
          )}
        </>
      ),
      affects: 'Snapshots stay, and mounted volumes keep their data. A box serving a service’s URL cannot be deleted.',
      confirm: names.length === 1 ? 'Delete box' : `Delete ${names.length} boxes`,
      run: async () => {
        const failures = await mutation.mutateAsync({ names, action: 'delete' });
        if (failures.length) throw new Error(failureText(failures));
      },
      onDone: () => {
        notifyDone(`Deleted ${what(names)}`, `Deleted in project ${project}.`);
        onDone?.();
      },
    });

  return {
    stop: (names: string[]) => run(names, 'stop'),
    resume: (names: string[]) => run(names, 'resume'),
    pause: (names: string[]) => run(names, 'pause'),
    confirmDelete,
    pending: mutation.isPending,
  };
}
