import { Button, Progress, Stack, Text, TextInput } from '@mantine/core';
import { IconCamera } from '@tabler/icons-react';
import type { Box } from '../../../../shared/schemas/box';
import { notifyDone } from '../../app/notify';
import { InlineForm } from '../../kit/inline-form';
import { useOptionalName } from '../../kit/optional-name';
import { useTakeSnapshot } from './use-snapshots';

/** Take a snapshot of the box, with an optional name checked as you type. */
export function TakeSnapshotForm({ box, onFailure }: { box: Box; onFailure(title: string, error: unknown): void }) {
  const take = useTakeSnapshot(box.project, box.name);
  const name = useOptionalName();

  const takeSnapshot = () =>
    take.mutate(name.name || undefined, {
      onSuccess: (s) => {
        name.setName('');
        notifyDone(`Snapshot ${s.name} taken`, `${box.name}'s root as it was just now.`);
      },
      onError: (error) => onFailure(`Could not snapshot ${box.name}`, error),
    });

  return (
    <InlineForm
      label="Take a snapshot"
      onSubmit={() => {
        if (!name.error && !take.isPending) takeSnapshot();
      }}
      below={
        take.isPending && (
          <Stack gap={4} mt="sm" role="status" aria-label={`Taking a snapshot of ${box.name}`}>
            <Text size="sm">Taking a snapshot of {box.name}: committing its root…</Text>
            <Progress value={100} animated aria-hidden />
          </Stack>
        )
      }
    >
      <TextInput
        label="Snapshot name"
        description="optional; one is made up when empty"
        placeholder="before-upgrade"
        {...name.inputProps}
        style={{ flex: 1 }}
        disabled={take.isPending}
      />
      <Button
        type="submit"
        leftSection={<IconCamera size={16} />}
        loading={take.isPending}
        disabled={name.error !== null}
      >
        Take snapshot
      </Button>
    </InlineForm>
  );
}
