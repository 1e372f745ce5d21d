import os from 'node:os';
import type { ContainerEngine } from '../engine/container-engine';
import { inRange } from '../engine/ipv4';

/** The host's own IPv4 addresses (loopback is the box's own). */
function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flatMap((addresses) => addresses ?? [])
    .filter((a) => a.family === 'IPv4' && !a.internal)
    .map((a) => a.address);
}

/**
 * The host's own addresses, which a box reaches only with `network.host`: its interfaces' (read
 * each time: cheap) and the gateways of the engine's networks outside Boxdesk's range (read once
 * per engine-up; those inside it are closed as the range).
 */
export class HostAddresses {
  private gateways: Promise<string[]> | null = null;

  constructor(
    private readonly engine: Pick<ContainerEngine, 'networkGateways'>,
    private readonly pool: string,
  ) {}

  async get(): Promise<string[]> {
    this.gateways ??= this.engine.networkGateways().catch((err: unknown) => {
      this.gateways = null;
      throw err;
    });
    const outside = (await this.gateways).filter((g) => !inRange(g, this.pool));
    return [...new Set([...interfaceAddresses(), ...outside])].sort();
  }

  /** The engine's networks are read again next time (a new engine-up). */
  forget(): void {
    this.gateways = null;
  }
}
