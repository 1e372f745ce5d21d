import { List, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useBoxAction, type BoxAction } from '../../api/boxes';
import { describeError } from '../../api/session';
import { notifyDone } from '../../app/notify';

const DONE: Record<BoxAction, string> = { stop: 'Stopped', resume: 'Resumed', delete: 'Deleted' };

function what(names: string[]): string {
  return names.length === 1 ? names[0]! : `${names.length} boxes`;
}

/** Stop, resume and delete (after a confirmation) one box or several, with a notification when done. */
export function useBoxActions(project: string) {
  const mutation = useBoxAction(project);

  const run = async (names: string[], action: BoxAction): Promise<boolean> => {
    if (names.length === 0) return true;
    const failures = await mutation.mutateAsync({ names, action });
    if (failures.length === 0) {
      notifyDone(`${DONE[action]} ${what(names)}`, `${DONE[action]} in project ${project}.`);
      return true;
    }
    notifyDone(
      `Could not ${action} ${failures.length === 1 ? failures[0]!.name : `${failures.length} of ${names.length} boxes`}`,
      failures.map((f) => `${f.name}: ${describeError(f.error)}`).join('\n'),
      false,
    );
    return false;
  };

  const confirmDelete = (names: string[], onDone?: () => void) =>
    modals.openConfirmModal({
      title: names.length === 1 ? `Delete the box ${names[0]}?` : `Delete ${names.length} boxes?`,
      children: (
        <>
          <Text size="sm">Their files, consoles and logs are gone for good.</Text>
          {names.length > 1 && (
            <List size="sm" mt="xs" mah={200} style={{ overflow: 'auto' }}>
              {names.map((n) => (
                <List.Item key={n}>{n}</List.Item>
              ))}
            </List>
          )}
        </>
      ),
      labels: { confirm: names.length === 1 ? 'Delete box' : `Delete ${names.length} boxes`, cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => void run(names, 'delete').then(() => onDone?.()),
    });

  return {
    stop: (names: string[]) => run(names, 'stop'),
    resume: (names: string[]) => run(names, 'resume'),
    confirmDelete,
    pending: mutation.isPending,
  };
}
