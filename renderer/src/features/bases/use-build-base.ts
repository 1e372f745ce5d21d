import { useEffect, useRef, useState } from 'react';
import { readNdjson } from '../../../../shared/calls/byte-stream';
import type { BaseBuild, BuildLogLine } from '../../../../shared/schemas/builds';
import { tarArchive, textFile, type TarFile } from '../../../../shared/tar-writer';
import { useClient } from '../../api/client-context';

/** The name the dialog's Dockerfile goes by in the context, beside any Dockerfile of the folder. */
export const DIALOG_DOCKERFILE = '.boxdesk.Dockerfile';
/** The newest part of the log the dialog keeps. */
const MAX_LOG_CHARS = 1024 * 1024;

export interface BuildRequest {
  name: string;
  dockerfile: string;
  /** The context folder's files, as the browser's folder picker gives them. */
  files: File[];
  buildArgs: string[];
}

/** A file's path in the context: its path in the chosen folder, without the folder's own name. */
function contextPath(file: File): string {
  const relative = (file as File & { webkitRelativePath?: string }).webkitRelativePath;
  return relative ? relative.split('/').slice(1).join('/') : file.name;
}

async function contextTar(request: BuildRequest): Promise<Uint8Array> {
  const files: TarFile[] = [];
  for (const file of request.files)
    files.push({ name: contextPath(file), bytes: new Uint8Array(await file.arrayBuffer()) });
  return tarArchive([...files, textFile(DIALOG_DOCKERFILE, request.dockerfile)]);
}

function logText(line: BuildLogLine): string {
  if (line.step) return `Step ${line.step}\n`;
  if (line.error) return `\n${line.error}\n`;
  // The builder sends blank lines between its notes; they only space the log out.
  return line.stream?.trim() ? line.stream : '';
}

/**
 * A build started from the window: sends the context (a tar made here), then follows the
 * build's log until it ends, shown at most every 100 ms; `cancel` stops it.
 */
export function useBuildBase() {
  const client = useClient();
  const [build, setBuild] = useState<BaseBuild | null>(null);
  const [log, setLog] = useState('');
  const [problem, setProblem] = useState<unknown>(null);
  const [sending, setSending] = useState(false);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  const follow = async (started: BaseBuild, signal: AbortSignal) => {
    let buffer = '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    const show = () => {
      timer = undefined;
      setLog(buffer);
    };
    const res = await client.baseBuildLog(started.base, started.id, { follow: true, signal });
    for await (const line of readNdjson<BuildLogLine>(res.body as ReadableStream<Uint8Array>)) {
      buffer += logText(line);
      if (buffer.length > MAX_LOG_CHARS) buffer = buffer.slice(buffer.length - MAX_LOG_CHARS);
      timer ??= setTimeout(show, 100);
    }
    clearTimeout(timer);
    show();
    return client.getBaseBuild(started.base, started.id);
  };

  const start = async (request: BuildRequest): Promise<BaseBuild | null> => {
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    setProblem(null);
    setLog('');
    setBuild(null);
    setSending(true);
    try {
      const started = await client.buildBase(request.name, await contextTar(request), {
        dockerfile: DIALOG_DOCKERFILE,
        buildArgs: request.buildArgs,
      });
      setSending(false);
      setBuild(started);
      const ended = await follow(started, controller.signal);
      setBuild(ended);
      return ended;
    } catch (err) {
      if (!controller.signal.aborted) setProblem(err);
      return null;
    } finally {
      setSending(false);
    }
  };

  const cancel = async () => {
    if (!build || build.status !== 'building') return;
    try {
      await client.cancelBaseBuild(build.base, build.id);
    } catch (err) {
      setProblem(err);
    }
  };

  const reset = () => {
    abort.current?.abort();
    setBuild(null);
    setLog('');
    setProblem(null);
  };

  return { build, log, problem, sending, start, cancel, reset };
}
