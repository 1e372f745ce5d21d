import type Docker from 'dockerode';
import { createConnection, type Socket } from 'node:net';
import { EngineError } from '../container-engine';
import { call, orNull, toEngineError } from './errors';

export async function ensureNetwork(docker: Docker, name: string, labels: Record<string, string>): Promise<string> {
  const existing = await orNull(() => docker.getNetwork(name).inspect());
  if (existing) return (existing as { Id: string }).Id;
  try {
    const network = await docker.createNetwork({ Name: name, Labels: labels, CheckDuplicate: true });
    return network.id;
  } catch (err) {
    const e = toEngineError(err);
    if (e.kind !== 'conflict') throw e;
    // Created by someone else between the look and the create.
    return ((await call(() => docker.getNetwork(name).inspect())) as { Id: string }).Id;
  }
}

export async function removeNetwork(docker: Docker, name: string): Promise<void> {
  await orNull(() => docker.getNetwork(name).remove());
}

export async function connectNetwork(docker: Docker, network: string, containerId: string): Promise<void> {
  try {
    await docker.getNetwork(network).connect({ Container: containerId });
  } catch (err) {
    const e = toEngineError(err);
    if (/already exists in network|already attached/i.test(e.message)) return;
    throw e;
  }
}

/**
 * Dials `port` on the container's address on one of its networks. On Linux
 * the engine's bridge networks are routable from the host, so this is a plain
 * TCP connection. An engine whose containers live in a VM the host cannot
 * route to (Docker Desktop on macOS/Windows) would instead tunnel: publish the
 * port on the VM's loopback forwarder, or run a small relay over an exec
 * (`nc 127.0.0.1 <port>`) and hand up that exec's streams as the socket.
 */
export async function connect(docker: Docker, containerId: string, port: number): Promise<Socket> {
  const info = await call(() => docker.getContainer(containerId).inspect());
  if (!info.State.Running) throw new EngineError('conflict', `container ${containerId.slice(0, 12)} is not running, so nothing listens on port ${port}`);
  const address = Object.values(info.NetworkSettings.Networks ?? {}).map((n) => n.IPAddress).find(Boolean);
  if (!address) throw new EngineError('failed', `container ${containerId.slice(0, 12)} has no network address; connect it to a network first`);
  return new Promise<Socket>((resolve, reject) => {
    const socket = createConnection({ host: address, port });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      socket.destroy();
      reject(new EngineError(err.code === 'ECONNREFUSED' ? 'not_found' : 'failed', `nothing answers on port ${port} in the container (${err.code ?? err.message})`));
    });
  });
}
