import { Button, Group, Stack, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useState, type ReactNode } from 'react';
import { notifyDone } from '../app/notify';
import { ProblemAlert } from './problem-alert';

export interface ConfirmOptions<R> {
  /** A question naming the thing: "Delete the volume data?". */
  title: string;
  /** What goes (or changes) for good. */
  goes: ReactNode;
  /** What it frees or affects, or when the core refuses it. */
  affects?: ReactNode;
  /** The confirm button's label: "Delete volume". */
  confirm: string;
  /** The cancel button's label, when "Cancel" says less ("Keep editing"). */
  cancel?: string;
  /** `change` (orange) for what replaces or detaches rather than deletes. */
  tone?: 'destroy' | 'change';
  /** The request; the dialog stays open (its button busy) until it answers. */
  run(): Promise<R> | R;
  /** After the request succeeded and the dialog closed: a notification, a navigation. */
  onDone?(result: R): void;
}

function ConfirmBody<R>({
  goes,
  affects,
  confirm,
  cancel,
  tone,
  run,
  onDone,
  close,
}: ConfirmOptions<R> & { close(): void }) {
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<unknown>(null);
  const go = async () => {
    setPending(true);
    setProblem(null);
    try {
      const result = await run();
      setPending(false);
      close();
      onDone?.(result);
    } catch (err) {
      setPending(false);
      setProblem(err);
    }
  };
  return (
    <Stack gap="sm">
      <Text size="sm" component="div">
        {goes}
      </Text>
      {affects && <Text size="sm">{affects}</Text>}
      <ProblemAlert title={`Could not ${confirm.toLowerCase()}`} problem={problem} />
      <Group justify="flex-end">
        <Button variant="default" onClick={close} disabled={pending}>
          {cancel ?? 'Cancel'}
        </Button>
        <Button color={tone === 'change' ? 'orange' : 'red'} loading={pending} onClick={() => void go()}>
          {confirm}
        </Button>
      </Group>
    </Stack>
  );
}

/**
 * Asks before something goes: names it, says what goes with it and what it
 * frees or affects, runs the request with the dialog open, and shows the
 * core's refusal (a 409 naming what still needs it) in the dialog itself.
 */
export function confirmDestroy<R>(options: ConfirmOptions<R>): void {
  const modalId = `confirm-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  modals.open({
    modalId,
    title: options.title,
    closeButtonProps: { 'aria-label': 'Close' },
    children: <ConfirmBody {...options} close={() => modals.close(modalId)} />,
  });
}

/**
 * Asks before deleting a named thing, in the words every delete uses: "Delete the base web?", a
 * "Delete base" button, and once it is gone a "Deleted web" notice that says `gone`.
 */
export function confirmNamedDelete<R>(
  noun: string,
  name: string,
  o: Pick<ConfirmOptions<R>, 'goes' | 'affects' | 'run'> & { gone: string },
): void {
  confirmDestroy({
    title: `Delete the ${noun} ${name}?`,
    goes: o.goes,
    affects: o.affects,
    confirm: `Delete ${noun}`,
    run: o.run,
    onDone: () => notifyDone(`Deleted ${name}`, o.gone),
  });
}
