import { useEffect, useState } from 'react';
import type { FileStat } from '../../../../shared/schemas/files';
import { describeError } from '../../api/session';
import { notifyDone } from '../../app/notify';
import { formatBytes } from '../../kit/format';
import { decodeText } from './box-paths';
import { useFileTransfers, useInvalidateFiles } from './use-files';

/** Files larger than this open read-only, showing only their first MiB. */
export const EDIT_LIMIT = 1024 * 1024;

export type Loaded = { kind: 'text'; text: string; truncated: boolean } | { kind: 'binary' };

/**
 * A file's first MiB, decoded as UTF-8 text (or found not to be text), the
 * edited text, whether it differs from what is saved, and Save (the file keeps
 * its mode). Unsaved changes are reported up and guard the page's unload.
 */
export function useFileContent(project: string, name: string, file: FileStat, onDirtyChange: (d: boolean) => void) {
  const transfers = useFileTransfers(project, name);
  const invalidate = useInvalidateFiles(project, name);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState('');
  const [text, setText] = useState('');
  const [saving, setSaving] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const [size, setSize] = useState(file.size);
  const dirty = loaded?.kind === 'text' && text !== saved;

  useEffect(() => {
    let live = true;
    setError(null);
    transfers
      .readHead(file.path, EDIT_LIMIT)
      .then(({ bytes, truncated }) => {
        if (!live) return;
        const decoded = decodeText(bytes);
        if (decoded === null) return setLoaded({ kind: 'binary' });
        setLoaded({ kind: 'text', text: decoded, truncated });
        setSaved(decoded);
        setText(decoded);
      })
      .catch((err: unknown) => live && setError(describeError(err)));
    return () => {
      live = false;
    };
    // transfers is rebuilt each render; the file and the retry count are what matter.
  }, [file.path, attempt]);

  useEffect(() => onDirtyChange(dirty), [dirty, onDirtyChange]);
  useEffect(() => () => onDirtyChange(false), [onDirtyChange]);
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const save = async () => {
    if (!dirty || saving) return;
    setSaving(true);
    const content = text;
    try {
      const stat = await transfers.writeText(file.path, content, file.mode);
      setSaved(content);
      setSize(stat.size);
      invalidate();
      notifyDone(`Saved ${file.path}`, `${formatBytes(stat.size)} written with mode ${stat.mode}.`);
    } catch (err) {
      notifyDone(`Could not save ${file.path}`, describeError(err), false);
    } finally {
      setSaving(false);
    }
  };
  const download = () =>
    void transfers
      .download(file.path)
      .catch((err: unknown) => notifyDone(`Could not download ${file.path}`, describeError(err), false));

  return { loaded, error, text, setText, dirty, saving, size, save, download, retry: () => setAttempt((n) => n + 1) };
}
