import { useEffect, useState } from 'react';
import { readText } from './read-text';
import { describeError } from './session';

/** The most a streamed text view keeps: the newest 2 MiB. */
const MAX_CHARS = 2 * 1024 * 1024;

/**
 * A streamed text answer as it arrives (a box's logs, a job's output): shown at most every
 * 100 ms, the newest 2 MiB kept, `live` while a `following` stream is open. `open` makes the
 * request (null: nothing to show); it runs again whenever `deps` change.
 */
export function useStreamedText(
  open: ((signal: AbortSignal) => Promise<{ body: unknown }>) | null,
  following: boolean,
  deps: readonly unknown[],
) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [live, setLive] = useState(false);
  useEffect(() => {
    setText('');
    setError(null);
    if (!open) return;
    const abort = new AbortController();
    let buffer = '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    const show = () => {
      timer = undefined;
      setText(buffer);
    };
    void (async () => {
      try {
        const res = await open(abort.signal);
        setLive(following);
        await readText(res.body as ReadableStream<Uint8Array>, (t) => {
          buffer += t;
          if (buffer.length > MAX_CHARS) buffer = buffer.slice(buffer.length - MAX_CHARS);
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
  }, deps);
  return { text, error, live };
}
