import { ApiError } from '../../../../shared/errors';
import { EngineError, type ContainerEngine } from '../container-engine';
import type { EngineMonitor } from '../engine-monitor';

/** The label every box container and data volume of a region other than the first carries. */
export const REGION_LABEL = 'boxdesk.region';

/** One engine the core drives, named: a region (SPEC "Engines and regions"). */
export interface Region {
  name: string;
  /** The region's own engine (with the box agent where it runs there). */
  engine: ContainerEngine;
  monitor: EngineMonitor;
}

/** An operation needed a region whose engine is away: 503 naming it, while the other regions carry on. */
export class RegionUnavailableError extends EngineError {
  constructor(
    readonly region: string,
    reason: string,
  ) {
    super('unavailable', `the engine of region "${region}" is unreachable (${reason})`);
    this.name = 'RegionUnavailableError';
  }
}

/** The regions, the first being where anything without a region goes (`local` unless named otherwise). */
export class Regions {
  private readonly byName: Map<string, Region>;

  constructor(readonly all: readonly Region[]) {
    if (all.length === 0) throw new Error('the core needs at least one engine');
    this.byName = new Map(all.map((r) => [r.name, r]));
  }

  get first(): Region {
    return this.all[0]!;
  }

  names(): string[] {
    return this.all.map((r) => r.name);
  }

  find(name: string): Region | undefined {
    return this.byName.get(name);
  }

  /** The named region; unknown: 400 naming the ones there are, at `path`. */
  require(name: string, path: string): Region {
    const region = this.byName.get(name);
    if (region) return region;
    const names = this.names();
    throw new ApiError('invalid_body', `region "${name}" is not one of this core's: ${names.join(', ')}`, {
      errors: [{ path, message: `must be one of ${names.map((n) => `"${n}"`).join(', ')}` }],
    });
  }

  /** 503 naming the region unless its engine is up. */
  requireUp(name: string): void {
    const region = this.find(name);
    if (region && !region.monitor.current.up)
      throw new ApiError(
        'engine_unavailable',
        `the engine of region "${name}" is unreachable (${region.monitor.current.reason}); its boxes' records still read, and the other regions carry on. Boxdesk reconnects by itself once it is back`,
      );
  }
}
