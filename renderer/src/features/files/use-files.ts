import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { FileStat } from '../../../../shared/schemas/files';
import { useApi, useClient } from '../../api/client-context';
import { uploadingClient } from '../../api/xhr-fetch';
import { saveBlob } from '../../kit/download';

/** The files caches of one box: its listings by directory and its changes since the base. */
export const fileKeys = {
  box: (project: string, name: string) => ['files', project, name] as const,
  list: (project: string, name: string, path: string) => ['files', project, name, 'list', path] as const,
  changes: (project: string, name: string) => ['files', project, name, 'changes'] as const,
};

/** A directory's entries, directories first, then by name. */
export function useFileList(project: string, name: string, path: string) {
  const client = useClient();
  return useQuery({
    queryKey: fileKeys.list(project, name, path),
    queryFn: async () => {
      const { items } = await client.listFiles(project, name, path);
      return [...items].sort(
        (a, b) => Number(b.type === 'dir') - Number(a.type === 'dir') || a.path.localeCompare(b.path),
      );
    },
  });
}

export function useFileChanges(project: string, name: string, enabled: boolean) {
  const client = useClient();
  return useQuery({
    queryKey: fileKeys.changes(project, name),
    queryFn: async () => (await client.fileChanges(project, name)).items,
    enabled,
  });
}

/** Drops what this window knows of a box's files (after a write, upload, delete or new folder). */
export function useInvalidateFiles(project: string, name: string) {
  const qc = useQueryClient();
  return () => void qc.invalidateQueries({ queryKey: fileKeys.box(project, name) });
}

/** Joins the chunks read so far into one array. */
function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}

export function useFileTransfers(project: string, name: string) {
  const { client, token } = useApi();
  const readBlob = async (path: string): Promise<Blob> => {
    const res = (await client.readFile(project, name, path)) as unknown as Response;
    return res.blob();
  };
  return {
    /** Writes one picked or dropped file into the box, reporting bytes sent as it goes. */
    upload(
      path: string,
      file: Blob,
      onProgress: (sent: number, total: number) => void,
      signal?: AbortSignal,
    ): Promise<FileStat> {
      return uploadingClient(token, onProgress, { signal }).writeFile(project, name, path, file);
    },
    /** The file's bytes as a Blob; the token goes in the header, never in a URL. */
    readBlob,
    /** At most `max` bytes from the start of the file, and whether there was more. */
    async readHead(path: string, max: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
      const res = (await client.readFile(project, name, path)) as unknown as Response;
      const reader = res.body!.getReader();
      const chunks: Uint8Array[] = [];
      let size = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        chunks.push(value);
        size += value.length;
        if (size > max) {
          await reader.cancel();
          break;
        }
      }
      return { bytes: concat(chunks, size).subarray(0, Math.min(size, max)), truncated: size > max };
    },
    /** Saves the file to the user's downloads. */
    async download(path: string): Promise<void> {
      saveBlob(await readBlob(path), path.split('/').pop() || 'download');
    },
    writeText(path: string, text: string, mode: string): Promise<FileStat> {
      return client.writeFile(project, name, path, new TextEncoder().encode(text), { mode });
    },
    stat: (path: string) => client.statFile(project, name, path),
    remove: (path: string, recursive: boolean) => client.deleteFile(project, name, path, { recursive }),
    mkdir: (path: string) => client.makeDirectory(project, name, path),
  };
}
