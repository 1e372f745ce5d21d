import { Button, Stack, TextInput } from '@mantine/core';
import { IconPlayerPlay } from '@tabler/icons-react';
import { useState } from 'react';
import type { Job } from '../../../../shared/schemas/jobs';
import type { DetailTabProps } from '../../app/feature-module';
import { notifyDone } from '../../app/notify';
import { confirmDestroy } from '../../kit/confirm-destroy';
import { FailureAlert, type Failure } from '../../kit/failure-alert';
import { InlineForm } from '../../kit/inline-form';
import { QueryStates } from '../../kit/query-states';
import { JobOutput } from './job-output';
import { JobsTable } from './jobs-table';
import { useDeleteJob, useJobs, useKillJob, useStartJob } from './use-jobs';

/** A box's background commands: start one, list them, follow one's output, kill, delete. */
export function JobsTab({ box }: DetailTabProps) {
  const jobs = useJobs(box.project, box.name);
  const start = useStartJob(box.project, box.name);
  const kill = useKillJob(box.project, box.name);
  const remove = useDeleteJob(box.project, box.name);
  const [command, setCommand] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const shown = (jobs.data ?? []).find((j) => j.id === selected);

  const run = () =>
    start.mutate(command, {
      onSuccess: (j) => {
        setCommand('');
        setSelected(j.id);
      },
      onError: (error) => setFailure({ title: `Could not start the job in ${box.name}`, error }),
    });
  const onKill = (j: Job) =>
    kill.mutate(j, { onError: (error) => setFailure({ title: `Could not kill ${j.id}`, error }) });
  const onDelete = (j: Job) =>
    confirmDestroy({
      title: `Delete the job ${j.command.join(' ')}?`,
      goes: 'Its kept output goes; a running job is killed first.',
      confirm: 'Delete job',
      run: () => remove.mutateAsync(j),
      onDone: () => {
        if (selected === j.id) setSelected(null);
        notifyDone('Job deleted', `${j.id} and its output are gone.`);
      },
    });

  return (
    <Stack maw={1000}>
      <InlineForm
        label="Start a job"
        onSubmit={() => {
          if (command.trim() && !start.isPending) run();
        }}
      >
        <TextInput
          label="Command"
          description="runs with /bin/sh -c in the box, in the background; its output is kept"
          placeholder="npm test"
          value={command}
          onChange={(e) => setCommand(e.currentTarget.value)}
          autoComplete="off"
          style={{ flex: 1 }}
          disabled={box.status !== 'running' && box.status !== 'paused'}
        />
        <Button
          type="submit"
          leftSection={<IconPlayerPlay size={16} />}
          loading={start.isPending}
          disabled={!command.trim() || (box.status !== 'running' && box.status !== 'paused')}
        >
          Start job
        </Button>
      </InlineForm>
      <FailureAlert failure={failure} onDismiss={() => setFailure(null)} />
      <QueryStates query={jobs} what="the jobs" empty="No jobs yet: start one above, or with box exec --background.">
        {(items) => (
          <JobsTable
            jobs={items}
            selected={selected}
            onOpen={(j) => setSelected(j.id)}
            onKill={onKill}
            onDelete={onDelete}
          />
        )}
      </QueryStates>
      {shown && <JobOutput key={shown.id} project={box.project} box={box.name} job={shown} />}
    </Stack>
  );
}
