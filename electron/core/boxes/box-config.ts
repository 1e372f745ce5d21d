import { ApiError } from '../../../shared/errors';
import type { Config, ResolvedConfig } from '../../../shared/schemas/box';
import type { EngineInfo } from '../engine/container-engine';
import type { BoxRow } from './box-row';

/** Checks limits against what the engine can give; the schema already checked types and minimums. */
export function resolveConfig(
  input: Config | undefined,
  current: ResolvedConfig,
  info: EngineInfo | null | undefined,
): ResolvedConfig {
  const config = { ...current, ...input };
  if (config.region !== 'local') {
    throw new ApiError(
      'invalid_body',
      `config.region "${config.region}" is not available: "local" is the only region of this machine`,
      {
        errors: [{ path: 'body.config.region', message: 'must be "local"' }],
      },
    );
  }
  if (info && config.cpus > info.cpus) {
    throw new ApiError(
      'invalid_body',
      `config.cpus ${config.cpus} is more than the ${info.cpus} CPUs this machine has`,
      { errors: [{ path: 'body.config.cpus', message: `must be at most ${info.cpus}` }] },
    );
  }
  const ramLimit = info ? Math.floor(info.memoryBytes / 1024 / 1024) : Infinity;
  if (config.ram_mb > ramLimit) {
    throw new ApiError(
      'invalid_body',
      `config.ram_mb ${config.ram_mb} is more than the ${ramLimit} MiB this machine has`,
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
