import type { ContainerEngine } from './container-engine';

/** Marks every process an exec session starts, through the environment its children inherit. */
export const SESSION_ENV = 'BOXDESK_SESSION';

/**
 * The engine cannot kill an exec. Each exec is its own session leader, so a
 * sweep inside the box finds the sessions whose leader carries the marker and
 * signals every process in them, plus any marked process that left its
 * session. POSIX sh, grep and kill only: works in busybox and Debian alike.
 */
const SWEEP_SCRIPT = `
sig="$1"; id="$2"; mode="$3"
sids=""; targets=""
for d in /proc/[0-9]*; do
  p=\${d#/proc/}
  [ "$p" = "$$" ] && continue
  grep -qs "${SESSION_ENV}=$id" "$d/environ" 2>/dev/null || continue
  st=$(cat "$d/stat" 2>/dev/null) || continue
  set -- \${st##*) }
  [ "$4" = "$p" ] && { sids="$sids $4"; [ "$6" -gt 0 ] 2>/dev/null && targets="$targets -$6"; }
  [ "$mode" = all ] && targets="$targets $p"
done
if [ "$mode" = all ]; then
  for d in /proc/[0-9]*; do
    p=\${d#/proc/}
    st=$(cat "$d/stat" 2>/dev/null) || continue
    set -- \${st##*) }
    for s in $sids; do [ "$4" = "$s" ] && targets="$targets $p"; done
  done
elif [ -z "$targets" ]; then
  for s in $sids; do targets="$targets -$s"; done
fi
[ -n "$targets" ] && kill -s "$sig" $targets 2>/dev/null
exit 0
`;

export class ProcessSweeper {
  constructor(private readonly engine: ContainerEngine) {}

  /** Kills every process the session started, wherever it went. */
  killAll(containerId: string, sessionId: string): Promise<void> {
    return this.run(containerId, ['KILL', sessionId, 'all']);
  }

  /** Sends a signal to the session's foreground process group (what Ctrl-C reaches in a terminal). */
  signal(containerId: string, sessionId: string, signal: string): Promise<void> {
    return this.run(containerId, [signal.replace(/^SIG/, ''), sessionId, 'foreground']);
  }

  private async run(containerId: string, args: string[]): Promise<void> {
    const execId = await this.engine.createExec(containerId, {
      command: ['/bin/sh', '-c', SWEEP_SCRIPT, 'boxdesk-sweep', ...args],
      env: {},
      tty: false,
      stdin: false,
    });
    const { stdout, stderr } = await this.engine.startExec(execId, { tty: false, stdin: false });
    stderr.resume();
    await new Promise<void>((resolve) => {
      stdout.on('end', resolve);
      stdout.on('close', resolve);
      stdout.on('error', () => resolve());
      stdout.resume();
    });
  }
}
