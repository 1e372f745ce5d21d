import { Alert, Button, Code, Group, Mark, ScrollArea, Switch, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconDownload, IconSearch } from '@tabler/icons-react';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useClient } from '../../api/client-context';
import { describeError } from '../../api/session';
import type { DetailTabProps } from '../../app/feature-module';
import { saveBlob } from '../../kit/download';
import { readLogBlob } from './log-download';
import { useLogStream } from './use-log-stream';

function highlight(line: string, q: string): ReactNode {
  if (!q) return line;
  const parts: ReactNode[] = [];
  let at = 0;
  const lower = line.toLowerCase();
  for (let i = lower.indexOf(q); i >= 0; i = lower.indexOf(q, at)) {
    parts.push(line.slice(at, i), <Mark key={i}>{line.slice(i, i + q.length)}</Mark>);
    at = i + q.length;
  }
  parts.push(line.slice(at));
  return parts;
}

/** The main process's output: follow it live, search it, download all of it. */
export function LogsTab({ box }: DetailTabProps) {
  const client = useClient();
  const [follow, setFollow] = useState(true);
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim().toLowerCase(), 150);
  const logs = useLogStream(box.project, box.name, follow);
  const viewport = useRef<HTMLDivElement>(null);
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const [downloading, setDownloading] = useState(false);
  const lines = useMemo(() => {
    const all = logs.text.split('\n');
    if (all[all.length - 1] === '') all.pop();
    // The newest 5,000 lines are shown; the download has everything.
    return (q ? all.filter((l) => l.toLowerCase().includes(q)) : all).slice(-5000);
  }, [logs.text, q]);

  useEffect(() => {
    if (follow && viewport.current) viewport.current.scrollTop = viewport.current.scrollHeight;
  }, [lines, follow]);

  const download = async () => {
    setDownloadError(null);
    setDownloading(true);
    try {
      const res = await client.logs(box.project, box.name);
      saveBlob(await readLogBlob(res.body as ReadableStream<Uint8Array>), `${box.project}-${box.name}.log`);
    } catch (err) {
      setDownloadError(describeError(err));
    } finally {
      setDownloading(false);
    }
  };

  return (
    <>
      <Group gap="sm" mb="xs">
        <Switch label="Follow" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} />
        <TextInput
          size="xs"
          aria-label="Search the logs"
          placeholder="Search the logs"
          leftSection={<IconSearch size={14} />}
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          w={260}
        />
        <Button
          size="xs"
          variant="default"
          leftSection={<IconDownload size={14} />}
          loading={downloading}
          onClick={() => void download()}
        >
          Download logs
        </Button>
        <Text size="xs" c="dimmed" role="status">
          {logs.live ? 'following' : ''} {q ? `${lines.length} matching lines` : `${lines.length} lines`}
        </Text>
      </Group>
      {(logs.error || downloadError) && (
        <Alert color="red" role="alert" mb="xs" title="Could not read the logs">
          {logs.error ?? downloadError}
        </Alert>
      )}
      <ScrollArea h="calc(100vh - 320px)" mih={240} viewportRef={viewport} type="auto">
        <Code block role="log" aria-label="Logs" aria-live="off" style={{ minHeight: '100%' }}>
          {lines.length === 0 ? (
            <Text span c="dimmed">
              {q ? 'No line matches.' : 'No output yet.'}
            </Text>
          ) : (
            lines.map((l, i) => <div key={i}>{highlight(l, q)}</div>)
          )}
        </Code>
      </ScrollArea>
    </>
  );
}
