import { useEffect, useState } from 'react';
import type { BoxStats } from '../../../../shared/schemas/stats';
import { useClient } from '../../api/client-context';
import { readNdjson } from '../../../../shared/calls/byte-stream';
import { describeError } from '../../api/session';

const MAX_SAMPLES = 120;

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
        for await (const sample of readNdjson<BoxStats>(res.body as ReadableStream<Uint8Array>))
          setSamples((prev) => [...prev, sample].slice(-MAX_SAMPLES));
        if (!abort.signal.aborted) setError('The stats stream ended (the box stopped?).');
      } catch (err) {
        if (!abort.signal.aborted) setError(describeError(err));
      }
    })();
    return () => abort.abort();
  }, [client, project, name, enabled]);
  return { samples, error };
}
