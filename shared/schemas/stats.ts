import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from './common';

/**
 * One sample of a box's resource use: `GET /v1/projects/{p}/boxes/{name}/stats`,
 * or one line a second of its `?stream=1` form (application/x-ndjson).
 */
export const BoxStats = Type.Object({
  cpu_percent: Type.Number({ description: 'CPU use since the previous sample, 100 = one core.' }),
  memory_bytes: Type.Number(),
  memory_limit_bytes: Type.Number(),
  pids: Type.Number(),
  net_rx_bytes: Type.Number({ description: 'Bytes received since the box started.' }),
  net_tx_bytes: Type.Number({ description: 'Bytes sent since the box started.' }),
  block_read_bytes: Type.Number(),
  block_write_bytes: Type.Number(),
  at: Timestamp,
});
export type BoxStats = Static<typeof BoxStats>;
