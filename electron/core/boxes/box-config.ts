import { ApiError } from '../../../shared/errors';
import type { Config, ResolvedConfig } from '../../../shared/schemas/box';
import type { Regions } from '../engine/regions/regions';
import type { BoxRow } from './box-row';

/**
 * Checks the region against the core's and the limits against what its engine can give; the
 * schema already checked types and minimums. A box stays in its region: an update naming another,
 * or a fork (`current` is its source's) made in another, is a 409 saying so.
 */
export function resolveConfig(
  input: Config | undefined,
  current: ResolvedConfig,
  regions: Regions,
  what: 'update' | 'fork' | 'create' = 'create',
): ResolvedConfig {
  const config = { ...current, ...input };
  if (what !== 'create' && config.region !== current.region)
    throw new ApiError(
      'conflict',
      what === 'fork'
        ? `a fork is made in its source's region ("${current.region}"), not in "${config.region}": snapshots and images stay in their region`
        : `a box stays in its region ("${current.region}"); to have it in "${config.region}", make a new box there`,
    );
  const info = regions.require(config.region, 'body.config.region').monitor.current.info;
  if (info && config.cpus > info.cpus) {
    throw new ApiError(
      'invalid_body',
      `config.cpus ${config.cpus} is more than the ${info.cpus} CPUs region "${config.region}"'s engine has`,
      { errors: [{ path: 'body.config.cpus', message: `must be at most ${info.cpus}` }] },
    );
  }
  const ramLimit = info ? Math.floor(info.memoryBytes / 1024 / 1024) : Infinity;
  if (config.ram_mb > ramLimit) {
    throw new ApiError(
      'invalid_body',
      `config.ram_mb ${config.ram_mb} is more than the ${ramLimit} MiB region "${config.region}"'s engine has`,
      { errors: [{ path: 'body.config.ram_mb', message: `must be at most ${ramLimit}` }] },
    );
  }
  return config;
}

/** List cursors: opaque to clients, (created_at, id) inside. */
export function decodeCursor(cursor: string): { created_at: string; id: string } {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { c?: unknown; i?: unknown };
    if (typeof value.c === 'string' && typeof value.i === 'string') return { created_at: value.c, id: value.i };
  } catch {
    // fall through
  }
  throw new ApiError('invalid_body', 'query.cursor is not a cursor this API returned', {
    errors: [{ path: 'query.cursor', message: 'is not valid' }],
  });
}

export function encodeCursor(row: BoxRow): string {
  return Buffer.from(JSON.stringify({ c: row.created_at, i: row.id })).toString('base64url');
}
