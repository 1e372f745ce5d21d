import assert from 'node:assert/strict';

type Api = (method: string, pathname: string, body?: unknown) => Promise<Response>;

/** The command lines of every process in a box, one a line, read through the API's own exec. */
export async function boxProcesses(api: Api, boxPath: string): Promise<string> {
  const res = await api('POST', `${boxPath}/exec`, {
    command: ['sh', '-c', 'for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline 2>/dev/null; echo; done'],
  });
  if (res.status !== 200) throw new Error(`listing processes: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { stdout: string }).stdout;
}

/** Waits until no process in the box matches; fails listing what is still there. */
export function untilNoProcess(api: Api, boxPath: string, pattern: RegExp, ms = 10_000): Promise<void> {
  return untilProcesses(api, boxPath, (list) => !pattern.test(list), `still running in the box after ${ms} ms`, ms);
}

/** Waits until a process in the box matches (a command typed into a console runs once the shell reads it). */
export function untilProcess(api: Api, boxPath: string, pattern: RegExp, ms = 10_000): Promise<void> {
  return untilProcesses(api, boxPath, (list) => pattern.test(list), `no ${pattern} in the box after ${ms} ms`, ms);
}

async function untilProcesses(
  api: Api,
  boxPath: string,
  done: (list: string) => boolean,
  failure: string,
  ms: number,
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const list = await boxProcesses(api, boxPath);
    if (done(list)) return;
    if (Date.now() > deadline) throw new Error(`${failure}:\n${list}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The OOM scenario both engines must pass: `start` makes a box named `hog` whose main process
 * eats memory past a 64 MB limit and waits until it is in error. The box says why, and the event
 * stream (already open as `sse`) sends box.oom naming the box and its main process.
 */
export async function assertOomReported(
  sse: { waitFor(match: (e: { event: string; data: string }) => boolean): Promise<{ data: string }> },
  start: () => Promise<{ status_reason?: string | null }>,
): Promise<void> {
  const box = await start();
  assert.match(box.status_reason ?? '', /main process exited with code 137 \(OOM-killed/);
  assert.match(box.status_reason ?? '', /hogging memory/);
  const event = await sse.waitFor((e) => e.event === 'box.oom');
  const data = (JSON.parse(event.data) as { data: { box: string; process: string } }).data;
  assert.deepEqual([data.box, data.process], ['hog', 'main']);
}
