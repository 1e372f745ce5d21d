import { useEffect, useState } from 'react';
import type { BoxStats } from '../../../shared/schemas/stats';
import { useClient } from './client-context';
import { describeError } from './session';

const MAX_LOG_CHARS = 2 * 1024 * 1024;
const MAX_SAMPLES = 120;

async function readText(body: ReadableStream<Uint8Array>, onText: (t: string) => void): Promise<void> {
  const reader = body
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    onText(value);
  }
}

/** The box's main-process output: the last 1,000 lines, then (following) new lines as they come. */
export function useLogStream(project: string, name: string, follow: boolean) {
  const client = useClient();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [live, setLive] = useState(false);
  useEffect(() => {
    const abort = new AbortController();
    let buffer = '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    setText('');
    setError(null);
    // Chunks are shown at most every 100 ms; the buffer keeps the newest 2 MiB.
    const show = () => {
      timer = undefined;
      setText(buffer);
    };
    void (async () => {
      try {
        const res = await client.logs(project, name, { tail: 1000, follow, signal: abort.signal });
        setLive(follow);
        await readText(res.body as ReadableStream<Uint8Array>, (t) => {
          buffer += t;
          if (buffer.length > MAX_LOG_CHARS) buffer = buffer.slice(buffer.length - MAX_LOG_CHARS);
          timer ??= setTimeout(show, 100);
        });
        clearTimeout(timer);
        show();
      } catch (err) {
        if (!abort.signal.aborted) setError(describeError(err));
      } finally {
        if (!abort.signal.aborted) setLive(false);
      }
    })();
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [client, project, name, follow]);
  return { text, error, live };
}

/** One BoxStats sample a second from `?stream=1`, the newest two minutes kept. */
export function useStatsStream(project: string, name: string, enabled: boolean) {
  const client = useClient();
  const [samples, setSamples] = useState<BoxStats[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!enabled) return;
    const abort = new AbortController();
    setError(null);
    void (async () => {
      try {
        const res = await client.boxStatsStream(project, name, abort.signal);
        let partial = '';
        await readText(res.body as ReadableStream<Uint8Array>, (t) => {
          partial += t;
          const lines = partial.split('\n');
          partial = lines.pop() ?? '';
          const fresh = lines.filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as BoxStats);
          if (fresh.length) setSamples((prev) => [...prev, ...fresh].slice(-MAX_SAMPLES));
        });
        if (!abort.signal.aborted) setError('The stats stream ended (the box stopped?).');
      } catch (err) {
        if (!abort.signal.aborted) setError(describeError(err));
      }
    })();
    return () => abort.abort();
  }, [client, project, name, enabled]);
  return { samples, error };
}
