import type { Readable } from 'node:stream';
import tar from 'tar-stream';

/** Whether an engine archive of a directory holds anything but the directory itself; reads at most two headers. */
export async function holdsEntries(archive: Readable): Promise<boolean> {
  const extract = tar.extract();
  archive.on('error', (err) => extract.destroy(err));
  archive.pipe(extract);
  let count = 0;
  try {
    for await (const entry of extract) {
      entry.resume();
      if (++count > 1) return true;
    }
    return false;
  } finally {
    archive.destroy();
    extract.destroy();
  }
}
