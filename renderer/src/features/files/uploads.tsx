import { ActionIcon, Button, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import { IconX } from '@tabler/icons-react';
import { useRef, useState } from 'react';
import { describeError } from '../../api/session';
import { formatBytes } from '../../kit/format';
import { joinPath } from './box-paths';
import { useFileTransfers, useInvalidateFiles } from './use-files';

interface Upload {
  id: number;
  path: string;
  sent: number;
  total: number;
  state: 'waiting' | 'uploading' | 'done' | 'failed' | 'cancelled';
  error?: string;
}

/** At most this many files go up at once; the rest wait their turn. */
const PARALLEL = 3;

/** Uploads into the box with per-file progress, three at a time, each cancellable. */
export function useUploads(project: string, name: string) {
  const transfers = useFileTransfers(project, name);
  const invalidate = useInvalidateFiles(project, name);
  const [items, setItems] = useState<Upload[]>([]);
  const aborts = useRef(new Map<number, AbortController>());
  const nextId = useRef(1);

  const patch = (id: number, change: Partial<Upload>) =>
    setItems((prev) => prev.map((u) => (u.id === id ? { ...u, ...change } : u)));

  const start = (dir: string, files: File[]) => {
    const jobs = files.map((file) => ({
      file,
      upload: {
        id: nextId.current++,
        path: joinPath(dir, file.name),
        sent: 0,
        total: file.size,
        state: 'waiting' as const,
      },
    }));
    for (const j of jobs) aborts.current.set(j.upload.id, new AbortController());
    setItems((prev) => [...prev, ...jobs.map((j) => j.upload)]);
    const queue = [...jobs];
    const worker = async () => {
      for (let job = queue.shift(); job; job = queue.shift()) {
        const { id, path } = job.upload;
        const abort = aborts.current.get(id)!;
        if (abort.signal.aborted) continue;
        patch(id, { state: 'uploading' });
        try {
          await transfers.upload(path, job.file, (sent, total) => patch(id, { sent, total }), abort.signal);
          patch(id, { state: 'done', sent: job.file.size });
        } catch (err) {
          patch(id, abort.signal.aborted ? { state: 'cancelled' } : { state: 'failed', error: describeError(err) });
        } finally {
          aborts.current.delete(id);
          invalidate();
        }
      }
    };
    void Promise.all(Array.from({ length: Math.min(PARALLEL, jobs.length) }, worker));
  };

  return {
    items,
    start,
    cancel: (id: number) => {
      aborts.current.get(id)?.abort();
      patch(id, { state: 'cancelled' });
    },
    clearFinished: () => setItems((prev) => prev.filter((u) => u.state === 'waiting' || u.state === 'uploading')),
  };
}

const STATE_TEXT = {
  waiting: 'waiting',
  uploading: 'uploading',
  done: 'uploaded',
  failed: 'failed',
  cancelled: 'cancelled',
};

export function UploadList({ uploads }: { uploads: ReturnType<typeof useUploads> }) {
  if (uploads.items.length === 0) return null;
  const finished = uploads.items.some((u) => u.state !== 'waiting' && u.state !== 'uploading');
  return (
    <Paper withBorder p="xs" mb="xs" role="region" aria-label="Uploads">
      <Stack gap={6}>
        {uploads.items.map((u) => {
          const pct = u.total > 0 ? Math.round((u.sent / u.total) * 100) : u.state === 'done' ? 100 : 0;
          return (
            <div key={u.id}>
              <Group justify="space-between" gap="xs" wrap="nowrap">
                <Text size="sm" ff="monospace" truncate>
                  {u.path}
                </Text>
                <Group gap={4} wrap="nowrap">
                  <Text
                    size="xs"
                    c={u.state === 'failed' ? 'red' : 'dimmed'}
                    role="status"
                    aria-label={`Upload of ${u.path}`}
                  >
                    {STATE_TEXT[u.state]} · {formatBytes(u.sent)} of {formatBytes(u.total)}
                  </Text>
                  {(u.state === 'waiting' || u.state === 'uploading') && (
                    <ActionIcon
                      size="sm"
                      variant="subtle"
                      aria-label={`Cancel the upload of ${u.path}`}
                      onClick={() => uploads.cancel(u.id)}
                    >
                      <IconX size={14} />
                    </ActionIcon>
                  )}
                </Group>
              </Group>
              <Progress
                value={pct}
                size="sm"
                color={u.state === 'failed' ? 'red' : u.state === 'done' ? 'green' : undefined}
                aria-label={`Progress of ${u.path}`}
              />
              {u.error && (
                <Text size="xs" c="red" mt={2}>
                  {u.error}
                </Text>
              )}
            </div>
          );
        })}
        {finished && (
          <Group justify="flex-end">
            <Button size="compact-xs" variant="subtle" onClick={uploads.clearFinished}>
              Clear finished uploads
            </Button>
          </Group>
        )}
      </Stack>
    </Paper>
  );
}
