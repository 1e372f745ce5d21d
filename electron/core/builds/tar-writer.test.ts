import assert from 'node:assert/strict';
import { test } from 'node:test';
import tar from 'tar-stream';
import { tarArchive, textFile } from '../../../shared/tar-writer';

test('tarArchive writes a ustar archive that a tar reader reads back, long names included', async () => {
  const long = `${'d'.repeat(120)}/${'f'.repeat(90)}.txt`;
  const bytes = tarArchive([
    textFile('Dockerfile', 'FROM boxdesk/default\n'),
    { name: long, bytes: new Uint8Array(700).fill(7), mode: 0o755 },
  ]);
  const extract = tar.extract();
  const seen: { name: string; size: number; mode: number | undefined; body: Buffer }[] = [];
  extract.on('entry', (header, stream, next) => {
    const parts: Buffer[] = [];
    stream.on('data', (c) => parts.push(c as Buffer));
    stream.on('end', () => {
      seen.push({ name: header.name, size: header.size ?? 0, mode: header.mode, body: Buffer.concat(parts) });
      next();
    });
  });
  const done = new Promise<void>((resolve, reject) => extract.on('finish', () => resolve()).on('error', reject));
  extract.end(Buffer.from(bytes));
  await done;
  assert.deepEqual(
    seen.map((e) => [e.name, e.size, e.mode]),
    [
      ['Dockerfile', 21, 0o644],
      [long, 700, 0o755],
    ],
  );
  assert.equal(seen[0]!.body.toString(), 'FROM boxdesk/default\n');
  assert.ok(seen[1]!.body.every((b) => b === 7));
  assert.throws(() => tarArchive([textFile('x'.repeat(300), '')]), /too long/);
});
