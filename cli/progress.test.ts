import assert from 'node:assert/strict';
import readline from 'node:readline';
import { PassThrough, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, it } from 'node:test';
import { formatBytes } from './output';
import { transferBar, withSpinner } from './progress';

/** A stream that records what is drawn on it; `tty` makes it claim to be a terminal. */
function screen(tty: boolean): NodeJS.WriteStream & { text(): string } {
  const stream = new PassThrough() as unknown as NodeJS.WriteStream & { text(): string };
  let text = '';
  (stream as unknown as PassThrough).on('data', (d: Buffer) => (text += d.toString()));
  Object.assign(stream, { isTTY: tty, columns: 120, rows: 40, text: () => text });
  // What tty.WriteStream adds, done the way it does it: through readline.
  if (tty) {
    const w = stream as unknown as NodeJS.WritableStream;
    Object.assign(stream, {
      cursorTo: (x: number, y?: number, cb?: () => void) => readline.cursorTo(w, x, y, cb),
      moveCursor: (dx: number, dy: number, cb?: () => void) => readline.moveCursor(w, dx, dy, cb),
      clearLine: (dir: -1 | 0 | 1, cb?: () => void) => readline.clearLine(w, dir, cb),
      clearScreenDown: (cb?: () => void) => readline.clearScreenDown(w, cb),
    });
  }
  return stream;
}

/** Collects the bytes that come out of a pipeline. */
function sink(): Writable & { bytes(): Buffer } {
  const chunks: Buffer[] = [];
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk);
      cb();
    },
  });
  return Object.assign(w, { bytes: () => Buffer.concat(chunks) });
}

function chunks(sizes: number[]): Buffer[] {
  return sizes.map((n, i) => Buffer.alloc(n, i + 1));
}

describe('transferBar', () => {
  it('counts every byte and passes them through unchanged', async () => {
    const data = chunks([1, 4096, 0, 65536, 7]);
    const stderr = screen(false);
    const bar = await transferBar({ label: 'uploading', total: 69640, stream: stderr });
    const out = sink();
    await pipeline(Readable.from(data), bar, out);
    assert.equal(bar.bytes, 69640);
    assert.deepEqual(out.bytes(), Buffer.concat(data));
    assert.equal(stderr.text(), '', 'nothing is drawn where stderr is not a terminal');
  });

  it('counts strings by their bytes', async () => {
    const bar = await transferBar({ label: 'x', stream: screen(false) });
    await pipeline(Readable.from(['héllo', '€'], { objectMode: false }), bar, sink());
    assert.equal(bar.bytes, Buffer.byteLength('héllo€'));
  });

  it('on a terminal draws the label, bytes done and the total', async () => {
    const stderr = screen(true);
    const bar = await transferBar({ label: 'downloading backup', total: 3 * 1024 * 1024, stream: stderr });
    await pipeline(Readable.from(chunks([1024 * 1024, 1024 * 1024, 1024 * 1024])), bar, sink());
    const drawn = stderr.text();
    assert.match(drawn, /downloading backup/);
    assert.match(drawn, /3\.0 MiB of 3\.0 MiB/);
    assert.match(drawn, /100%/);
  });

  it('without a total shows bytes and rate only', async () => {
    const stderr = screen(true);
    const bar = await transferBar({ label: 'importing', stream: stderr });
    await pipeline(Readable.from(chunks([2048])), bar, sink());
    assert.match(stderr.text(), /importing 2\.0 KiB \| [\d.]+ (B|KiB|MiB|GiB)\/s/);
    assert.doesNotMatch(stderr.text(), /ETA|%/);
  });
});

describe('withSpinner', () => {
  it('where stderr is not a terminal, runs the work silently and passes its result and errors on', async () => {
    const stderr = screen(false);
    assert.equal(await withSpinner('creating', async () => 42, stderr), 42);
    await assert.rejects(
      withSpinner('creating', async () => Promise.reject(new Error('boom')), stderr),
      /boom/,
    );
    assert.equal(stderr.text(), '');
  });
});

describe('withSpinner on a terminal', () => {
  it('draws the label while the work runs', async () => {
    const stderr = screen(true);
    assert.equal(
      await withSpinner(
        'stopping box web',
        () => new Promise((resolve) => setTimeout(() => resolve('done'), 250)),
        stderr,
      ),
      'done',
    );
    assert.match(stderr.text(), /stopping box web/);
  });

  it('stays silent on a terminal without a size (ora would loop clearing it)', async () => {
    const stderr = screen(true);
    Object.assign(stderr, { columns: 0 });
    assert.equal(await withSpinner('stopping', async () => 1, stderr), 1);
    assert.equal(stderr.text(), '');
  });
});

describe('formatBytes', () => {
  it('uses binary units with one decimal', () => {
    assert.deepEqual([0, 1023, 1024, 1536, 1048576, 5 * 1024 ** 3].map(formatBytes), [
      '0 B',
      '1023 B',
      '1.0 KiB',
      '1.5 KiB',
      '1.0 MiB',
      '5.0 GiB',
    ]);
  });
});
