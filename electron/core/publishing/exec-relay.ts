import type { Duplex } from 'node:stream';
import type { ContainerEngine } from '../engine/container-engine';
import { ExecSocket } from '../engine/exec-socket';

/** Runs in the box: relays stdin/stdout to 127.0.0.1:PORT with whatever relay the box has. */
const RELAY_SCRIPT = `
if command -v nc >/dev/null 2>&1; then exec nc "$1" "$2"; fi
if command -v socat >/dev/null 2>&1; then exec socat - "TCP:$1:$2"; fi
echo "no nc or socat in the box" >&2; exit 127
`;

/** Whether the box has a relay (nc or socat) on its PATH, or as a busybox applet. */
export const RELAY_PROBE = 'command -v nc >/dev/null 2>&1 || command -v socat >/dev/null 2>&1';

/**
 * A connection to `address:port` as seen from inside the box, carried by an
 * exec of `nc` (or `socat`): how a server bound to the box's own loopback is
 * reached. Looks enough like a socket for an HTTP agent and for upgrades.
 */
export async function execRelay(
  engine: ContainerEngine,
  containerId: string,
  address: string,
  port: number,
): Promise<Duplex> {
  const execId = await engine.createExec(containerId, {
    command: ['sh', '-c', RELAY_SCRIPT, 'boxdesk-relay', address, String(port)],
    env: {},
    tty: false,
    stdin: true,
  });
  return new ExecSocket(await engine.startExec(execId, { tty: false, stdin: true }));
}
