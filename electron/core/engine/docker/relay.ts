import type Docker from 'dockerode';
import os from 'node:os';
import type { Readable } from 'node:stream';
import { AGENT_BINARY_PATH, EngineError, type BoxSocket } from '../container-engine';
import { ExecSocket } from '../exec-socket';
import { createExec, inspectExec, startExec } from './exec';

/** The box agent's exit code when nothing listens (agent/internal/relay). */
const REFUSED = 111;

/** Without the agent: nc or socat, after the same zero byte the agent's relay sends once connected. */
const SHELL_RELAY = `
if command -v nc >/dev/null 2>&1; then printf '\\000'; exec nc "$1" "$2"; fi
if command -v socat >/dev/null 2>&1; then printf '\\000'; exec socat - "TCP:$1:$2"; fi
echo "the box has neither Boxdesk's agent nor nc or socat to relay a connection" >&2; exit 127
`;

/**
 * Whether the core's host can route to containers on this network: the engine's bridge for it is
 * an interface of this host holding its gateway (Docker or Podman on Linux). A VM engine's bridge
 * (Docker Desktop, colima, Podman machine), a remote engine's, or one in another network namespace
 * is not, even where its addresses look like ours (two engines' default 172.17.0.1): the bridge's
 * name (`br-` and the network's id) tells them apart.
 */
export function bridgeIsLocal(bridge: string | null, gateway: string): boolean {
  if (!gateway) return true; // nothing to judge by: dial, as before
  const interfaces = os.networkInterfaces();
  if (bridge) return (interfaces[bridge] ?? []).some((a) => a.address === gateway);
  return Object.values(interfaces).some((addresses) => addresses?.some((a) => a.address === gateway));
}

/** The Linux bridge a Docker or Podman network of the bridge driver uses, or null where unknown. */
export function bridgeName(network: {
  Id: string;
  Name: string;
  Driver?: string;
  Options?: Record<string, string>;
}): string | null {
  const named = network.Options?.['com.docker.network.bridge.name'];
  if (named) return named;
  if (network.Driver !== 'bridge') return null;
  return network.Name === 'bridge' ? 'docker0' : `br-${network.Id.slice(0, 12)}`;
}

/**
 * A connection to `port` inside the container carried by an exec through the engine: the box
 * agent's `relay` where the box has it (no tool needed in the box), else nc or socat. The relay
 * dials the box's own 127.0.0.1, so a server bound only to the box's loopback is reached too.
 */
export async function relayConnect(
  docker: Docker,
  containerId: string,
  port: number,
  withAgent: boolean,
): Promise<BoxSocket> {
  const command = withAgent
    ? [AGENT_BINARY_PATH, 'relay', '127.0.0.1', String(port)]
    : ['sh', '-c', SHELL_RELAY, 'boxdesk-relay', '127.0.0.1', String(port)];
  const execId = await createExec(docker, containerId, { command, env: {}, tty: false, stdin: true });
  const streams = await startExec(docker, execId, { tty: false, stdin: true });
  const stderr: Buffer[] = [];
  streams.stderr.on('data', (chunk: Buffer) => stderr.length < 16 && stderr.push(chunk));
  const first = await firstByte(streams.stdout);
  if (first === 0) return new ExecSocket(streams);
  streams.close();
  const state = await inspectExec(docker, execId).catch(() => null);
  const said = Buffer.concat(stderr).toString('utf8').trim();
  if (state?.exitCode === REFUSED)
    throw new EngineError('not_found', `nothing answers on port ${port} in the container (refused)`);
  throw new EngineError(
    'failed',
    `the relay to port ${port} in the container ended before connecting${said ? `: ${said}` : ''}`,
  );
}

/** The stream's first byte (the rest is put back), or null when it ends first. */
function firstByte(stream: Readable): Promise<number | null> {
  return new Promise((resolve) => {
    const done = (value: number | null) => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('close', onEnd);
      resolve(value);
    };
    const onEnd = () => done(null);
    const onReadable = () => {
      const chunk = stream.read() as Buffer | null;
      if (!chunk || chunk.length === 0) return;
      if (chunk.length > 1) stream.unshift(chunk.subarray(1));
      done(chunk[0]!);
    };
    stream.on('readable', onReadable);
    stream.once('end', onEnd);
    stream.once('close', onEnd);
  });
}
