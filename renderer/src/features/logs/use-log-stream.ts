import { useEffect, useState } from 'react';
import { useClient } from '../../api/client-context';
import { readText } from '../../api/read-text';
import { describeError } from '../../api/session';

const MAX_LOG_CHARS = 2 * 1024 * 1024;

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
