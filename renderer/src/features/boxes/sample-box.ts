import type { Box } from '../../../../shared/schemas/box';

/** A box as the API states it, for the unit tests of the list and its caches. */
export function sampleBox(name: string, status: Box['status'], patch: Partial<Box> = {}): Box {
  return {
    id: `box_${name}`,
    name,
    project: 'p',
    status,
    status_reason: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    base: 'default',
    config: { cpus: 1, ram_mb: 1024, region: 'local', storage_gb: 10, pids_limit: 1024 },
    storage_enforced: false,
    data_mounts: null,
    environment: {},
    network: { egress: 'open', allow: [], host: false },
    secrets: [],
    port: null,
    published_domains: null,
    tags: {},
    termination_grace_period_seconds: null,
    url: null,
    url_settings: null,
    ...patch,
  };
}
