import { useEffect, useRef, useState } from 'react';
import { upLineText } from '../../../../shared/calls/up';
import type { UpDone } from '../../../../shared/schemas/up';
import { useApi } from '../../api/client-context';
import { uploadingClient } from '../../api/xhr-fetch';
import { folderTar, type ChosenFolder } from './folder-tar';

/** The newest part of the log the dialog keeps. */
const MAX_LOG_CHARS = 1024 * 1024;

export interface UpState {
  /** Bytes of the folder sent, while it is sent. */
  upload: { sent: number; total: number } | null;
  /** The phase the core is at, as it last said. */
  phase: string | null;
  log: string;
  done: UpDone | null;
  failure: string | null;
}

const IDLE: UpState = { upload: null, phase: null, log: '', done: null, failure: null };

/**
 * `box up` from the window: sends the chosen folder (a tar Blob: the browser reads each file from
 * disk as it sends) to POST …/up and follows the answer, shown at most every 100 ms; `cancel`
 * closes it, which stops a build in progress.
 */
export function useBoxUp(project: string) {
  const { token } = useApi();
  const [state, setState] = useState<UpState>(IDLE);
  const [problem, setProblem] = useState<unknown>(null);
  const [running, setRunning] = useState(false);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  const start = async (folder: ChosenFolder, name: string | undefined): Promise<UpDone | null> => {
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    setProblem(null);
    setRunning(true);
    const body = folderTar(folder.files);
    let current: UpState = { ...IDLE, upload: { sent: 0, total: body.size } };
    setState(current);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const show = () => {
      timer = undefined;
      setState(current);
    };
    const update = (change: Partial<UpState>) => {
      current = { ...current, ...change };
      timer ??= setTimeout(show, 100);
    };
    try {
      const client = uploadingClient(
        token,
        (sent, total) => update({ upload: sent < total ? { sent, total } : null }),
        { signal: controller.signal, streaming: true },
      );
      const lines = client.up(project, body, { ...(name ? { name } : {}), folder: folder.name || undefined });
      for await (const line of lines) {
        let log = current.log + upLineText(line, '\n');
        if (log.length > MAX_LOG_CHARS) log = log.slice(log.length - MAX_LOG_CHARS);
        update({
          log,
          upload: null,
          ...(line.type === 'progress' ? { phase: line.message.split('\n')[0] } : {}),
          ...(line.type === 'done' ? { done: line } : {}),
          ...(line.type === 'error' ? { failure: line.message } : {}),
        });
      }
      clearTimeout(timer);
      show();
      return current.done;
    } catch (err) {
      clearTimeout(timer);
      if (controller.signal.aborted) setState({ ...current, upload: null, failure: 'Cancelled' });
      else {
        setState({ ...current, upload: null });
        setProblem(err);
      }
      return null;
    } finally {
      setRunning(false);
    }
  };

  const cancel = () => abort.current?.abort();
  const reset = () => {
    abort.current?.abort();
    setState(IDLE);
    setProblem(null);
  };
  return { ...state, problem, running, start, cancel, reset };
}
