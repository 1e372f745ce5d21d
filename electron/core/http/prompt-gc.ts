import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * A streamed request body reaches the core as a fresh 64 KiB copy per socket read (Node's HTTP
 * parser copies each body chunk out of its own read buffer), freed only when V8 collects the small
 * objects that hold them. V8 counts that memory but collects for it only some 64 MiB later, so a
 * 200 MiB upload grew the core by 90–115 MiB, and the copies went to fresh memory each time. A
 * young-generation collection every 8 MiB passed hands them back: the bench's uploads grow the
 * core by about 30 MiB, and run faster, likely because the copies then reuse memory still in the
 * CPU's caches (docs/benchmarks.md).
 */
export const COLLECT_EVERY = 8 * 1024 * 1024;

type Collect = () => void;

/** V8's gc(), minor and at once; null where it cannot be had (the transfer only uses more memory). */
function minorGc(): Collect | null {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as unknown;
    if (typeof gc === 'function') return () => gc({ type: 'minor', execution: 'sync' });
  } catch {
    // Flags refused: no prompting.
  }
  return null;
}

let shared: Collect | null | undefined;

/** Whether transfers here prompt V8's collector. */
export function canCollect(): boolean {
  return (shared ??= minorGc()) !== null;
}

/** A counter for one transfer: given each chunk's length, it collects once every `every` bytes. */
export function promptCollector(every = COLLECT_EVERY, collect?: Collect): (bytes: number) => void {
  const run = collect ?? (canCollect() ? shared! : () => undefined);
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since < every) return;
    since %= every;
    run();
  };
}
