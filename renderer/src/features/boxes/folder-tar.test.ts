import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import tar from 'tar-stream';
import { chooseFolder, folderTar } from './folder-tar';

/** Files as the browser's folder picker gives them: each with its path under the chosen folder. */
function picked(files: Record<string, string>): File[] {
  return Object.entries(files).map(([path, text]) =>
    Object.assign(new File([text], path.slice(path.lastIndexOf('/') + 1)), { webkitRelativePath: `proj/${path}` }),
  );
}

test('the chosen folder leaves out .git and what .gitignore and .boxdeskignore say, where they stand and below', async () => {
  const folder = await chooseFolder(
    picked({
      '.gitignore': 'node_modules/\n*.log\n',
      '.boxdeskignore': 'secret.txt\n',
      'src/.gitignore': 'gen/\n',
      'src/app.ts': 'app',
      'src/gen/out.js': 'x',
      'debug.log': 'x',
      'node_modules/m/index.js': 'x',
      'secret.txt': 'x',
      '.git/HEAD': 'x',
    }),
  );
  assert.equal(folder.name, 'proj');
  assert.deepEqual(folder.files.map((f) => f.path).sort(), [
    '.boxdeskignore',
    '.gitignore',
    'src/.gitignore',
    'src/app.ts',
  ]);
  assert.equal(folder.leftOut, 5);
});

test('the folder as a tar Blob unpacks to the same files, long names and sizes past a block included', async () => {
  const long = `${'d'.repeat(120)}/file.txt`;
  const files = { 'a.txt': 'hello\n', [long]: 'x'.repeat(1500), empty: '' };
  const folder = await chooseFolder(picked(files));
  const blob = folderTar(folder.files);
  const extract = tar.extract();
  Readable.from(Buffer.from(await blob.arrayBuffer())).pipe(extract);
  const got: Record<string, string> = {};
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry as AsyncIterable<Buffer>) chunks.push(chunk);
    got[entry.header.name] = Buffer.concat(chunks).toString();
  }
  assert.deepEqual(got, files);
});
