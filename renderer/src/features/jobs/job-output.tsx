import { Alert, Code, Group, ScrollArea, SegmentedControl, Text, Title } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import type { Job } from '../../../../shared/schemas/jobs';
import { useJobOutput } from './use-jobs';

/** One job's output, live while it runs. */
export function JobOutput({ project, box, job }: { project: string; box: string; job: Job }) {
  const [stream, setStream] = useState<'stdout' | 'stderr'>('stdout');
  const output = useJobOutput(project, box, job.id, stream);
  const viewport = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (viewport.current) viewport.current.scrollTop = viewport.current.scrollHeight;
  }, [output.text]);

  return (
    <section aria-label={`Output of ${job.id}`}>
      <Group gap="sm" mb="xs">
        <Title order={4}>Output</Title>
        <SegmentedControl
          size="xs"
          aria-label="Stream"
          value={stream}
          onChange={(v) => setStream(v as 'stdout' | 'stderr')}
          data={[
            { value: 'stdout', label: 'stdout' },
            { value: 'stderr', label: 'stderr' },
          ]}
        />
        <Text size="xs" c="dimmed" role="status">
          {output.live ? 'following' : 'ended'}
        </Text>
      </Group>
      {output.error && (
        <Alert color="red" role="alert" mb="xs" title="Could not read the output">
          {output.error}
        </Alert>
      )}
      <ScrollArea h={320} viewportRef={viewport} type="auto">
        <Code block role="log" aria-label="Job output" aria-live="off" style={{ minHeight: '100%' }}>
          {output.text === '' ? (
            <Text span c="dimmed">
              No output yet.
            </Text>
          ) : (
            output.text
          )}
        </Code>
      </ScrollArea>
    </section>
  );
}
