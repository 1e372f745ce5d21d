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
export async function untilNoProcess(api: Api, boxPath: string, pattern: RegExp, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const list = await boxProcesses(api, boxPath);
    if (!pattern.test(list)) return;
    if (Date.now() > deadline) throw new Error(`still running in the box after ${ms} ms:\n${list}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
