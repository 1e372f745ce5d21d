import net from 'node:net';

/**
 * A connection from a box agent read into reused buffers. Node reads a socket 64 KiB at a time
 * into a new buffer each time, which the collector frees later: for a file of hundreds of MiB
 * that is thousands of buffers, tens of MiB of the core's memory waiting for a collection, and
 * the collections themselves (docs/benchmarks.md). A socket made with `onread` reads into the
 * buffer it is given instead, as much as is there, up to its size; Node offers that only for
 * sockets it creates, so the accepted connection's handle is moved to one.
 */

/** Each read takes up to this much. */
const BUFFER_BYTES = 1024 * 1024;
/** Buffers kept for the next reads once handed back (more are made while all are in use). */
const POOL_KEEP = 8;
const pool: Buffer[] = [];

const takeBuffer = (): Buffer => pool.pop() ?? Buffer.allocUnsafeSlow(BUFFER_BYTES);

/** A buffer a reader kept (`keep()`), back for later reads once its bytes are written. */
export function giveBuffer(buffer: Buffer): void {
  if (pool.length < POOL_KEEP) pool.push(buffer);
}

/**
 * What is done with the bytes of one read: they are valid only until it returns, unless it calls
 * `keep()` (the whole buffer is then its own until it gives it back). Returning false pauses the
 * reads until `socket.resume()`.
 */
export type OnBytes = (bytes: Buffer, keep: () => Buffer) => boolean;

export interface PooledLine {
  /** The connection, for writes, `resume()`, its end and its errors. */
  socket: net.Socket;
  /** Where the bytes of the next reads go. */
  read(onBytes: OnBytes): void;
}

/** The bits of an accepted socket's handle this relies on (net.Socket's own, not documented). */
interface StreamHandle {
  reading?: boolean;
  readStop(): number;
  useUserBuffer(buffer: Uint8Array): void;
}

/**
 * The accepted connection `socket` (nothing read from it yet, nothing on its way: the agent
 * speaks only when asked) as a pooled line; null where this Node's sockets do not allow it, and
 * the caller reads `socket` as it is. `socket` is closed with the line.
 */
export function pooledLine(socket: net.Socket): PooledLine | null {
  const owner = socket as net.Socket & { _handle?: StreamHandle | null };
  const handle = owner._handle;
  if (
    !handle ||
    typeof handle.readStop !== 'function' ||
    typeof handle.useUserBuffer !== 'function' ||
    socket.destroyed ||
    socket.readableLength > 0
  )
    return null;
  handle.readStop();
  handle.reading = false;
  owner._handle = null;
  let current: Buffer | null = null;
  let kept = false;
  let onBytes: OnBytes = () => false;
  const line = new net.Socket({
    handle,
    onread: {
      buffer: () => {
        if (!current || kept) {
          current = takeBuffer();
          kept = false;
        }
        return current;
      },
      callback: (n: number, buffer: Uint8Array) =>
        onBytes((buffer as Buffer).subarray(0, n), () => {
          kept = true;
          return buffer as Buffer;
        }),
    },
  } as net.SocketConstructorOpts);
  line.on('error', () => undefined); // its reader hears it (end, close); never the core's crash
  line.on('close', () => {
    if (current && !kept) giveBuffer(current);
    current = null;
    socket.destroy(); // its owner (the hub) hears the close
  });
  return { socket: line, read: (fn) => void (onBytes = fn) };
}
