import { Transform, type TransformCallback } from 'node:stream';
import type cliProgress from 'cli-progress';
import type ora from 'ora';
import { formatBytes } from './output';

/**
 * Whether to draw on a stream: a terminal with a width. A pseudo-terminal
 * without a size (e.g. under `script`) reports 0 columns, and ora's clear
 * would then loop forever. This decides alone: ora is told `isEnabled`, or it
 * would also go quiet wherever a CI variable is set, terminal or not.
 */
export function canDraw(stream: NodeJS.WriteStream): boolean {
  return stream.isTTY === true && stream.columns > 0;
}

/** The drawing libraries, read only by a command that draws on a terminal (`box --help` and pipes never do). */
let drawing: { ora: typeof ora; cliProgress: typeof cliProgress } | undefined;

/** Loads the spinner and bar libraries when `stream` can show them; what draws calls it first. */
export async function prepareDrawing(stream: NodeJS.WriteStream): Promise<typeof drawing> {
  if (!drawing && canDraw(stream)) {
    const [o, c] = await Promise.all([import('ora'), import('cli-progress')]);
    drawing = { ora: o.default, cliProgress: c.default };
  }
  return canDraw(stream) ? drawing : undefined;
}

/** A spinner on `stream` while a slow request runs; nothing at all when the stream is not a terminal. */
export async function withSpinner<T>(
  label: string,
  work: () => Promise<T>,
  stream: NodeJS.WriteStream = process.stderr,
): Promise<T> {
  const lib = await prepareDrawing(stream);
  if (!lib) return work();
  const spinner = lib.ora({ text: label, stream, discardStdin: false, isEnabled: true }).start();
  try {
    return await work();
  } finally {
    spinner.stop();
  }
}

export interface TransferBarOptions {
  label: string;
  /** Bytes expected; unknown: the bar shows bytes and rate without a percentage or ETA. */
  total?: number;
  /** Where the bar is drawn; a stream that is not a terminal gets nothing. */
  stream: NodeJS.WriteStream;
}

/** A pass-through that counts the bytes of a transfer and draws them as a bar. */
export class TransferBar extends Transform {
  /** Bytes passed through so far. */
  bytes = 0;
  private readonly bar: cliProgress.SingleBar | null;
  private readonly started = Date.now();

  /** Draws only once prepareDrawing(options.stream) has loaded the bar library (transferBar does). */
  constructor(private readonly options: TransferBarOptions) {
    super();
    const known = options.total !== undefined;
    const lib = canDraw(options.stream) ? drawing : undefined;
    this.bar = lib
      ? new lib.cliProgress.SingleBar({
          stream: options.stream,
          format: known
            ? `${options.label} [{bar}] {percentage}% | {done} of {size} | {rate} | ETA {eta_formatted}`
            : `${options.label} {done} | {rate}`,
          hideCursor: true,
          clearOnComplete: false,
          etaBuffer: 50,
        })
      : null;
    this.bar?.start(options.total ?? 0, 0, this.payload());
    const stop = () => this.bar?.stop();
    this.on('end', stop).on('error', stop).on('close', stop);
  }

  private payload(): { done: string; size: string; rate: string } {
    const seconds = Math.max((Date.now() - this.started) / 1000, 0.001);
    return {
      done: formatBytes(this.bytes),
      size: formatBytes(this.options.total ?? 0),
      rate: `${formatBytes(Math.round(this.bytes / seconds))}/s`,
    };
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    this.bar?.update(this.bytes, this.payload());
    callback(null, chunk);
  }
}

/** `source.pipe(await transferBar({ label: 'uploading', total, stream: process.stderr })).pipe(dest)`. */
export async function transferBar(options: TransferBarOptions): Promise<TransferBar> {
  await prepareDrawing(options.stream);
  return new TransferBar(options);
}
