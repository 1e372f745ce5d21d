import type { Readable } from 'node:stream';

/**
 * Calls `onLine` with each line of a stream of newline-delimited JSON (the engine's events and
 * stats streams) as it completes, trimmed; empty lines are skipped.
 */
export function onLines(stream: Readable, onLine: (line: string) => void): void {
  let buffered = '';
  stream.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line) onLine(line);
    }
  });
}
