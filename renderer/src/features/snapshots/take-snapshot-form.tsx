import { Button, Progress, Stack, Text, TextInput } from '@mantine/core';
import { IconCamera } from '@tabler/icons-react';
import { useState } from 'react';
import type { Box } from '../../../../shared/schemas/box';
import { notifyDone } from '../../app/notify';
import { InlineForm } from '../../kit/inline-form';
import { dnsLabelError } from '../../kit/validators';
import { useTakeSnapshot } from './use-snapshots';

/** Take a snapshot of the box, with an optional name checked as you type. */
export function TakeSnapshotForm({ box, onFailure }: { box: Box; onFailure(title: string, error: unknown): void }) {
  const take = useTakeSnapshot(box.project, box.name);
  const [name, setName] = useState('');
  const nameError = name === '' ? null : dnsLabelError(name);

  const takeSnapshot = () =>
    take.mutate(name || undefined, {
      onSuccess: (s) => {
        setName('');
        notifyDone(`Snapshot ${s.name} taken`, `${box.name}'s root as it was just now.`);
      },
      onError: (error) => onFailure(`Could not snapshot ${box.name}`, error),
    });

  return (
    <InlineForm
      label="Take a snapshot"
      onSubmit={() => {
        if (!nameError && !take.isPending) takeSnapshot();
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
    </InlineForm>
  );
}
