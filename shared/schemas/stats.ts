import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject, Timestamp } from './common';

export const BoxStats = ClosedObject({
  cpu_percent: Type.Number({ description: 'Percent of one CPU (200 = two CPUs busy).' }),
  memory_bytes: Type.Integer({ description: 'Memory in use, without reclaimable page cache.' }),
  memory_limit_bytes: Type.Integer({ description: 'The memory limit (config.ram_mb).' }),
  pids: Type.Integer({ description: 'Processes and threads running now (limit: config.pids_limit).' }),
  net_rx_bytes: Type.Integer(),
  net_tx_bytes: Type.Integer(),
  block_read_bytes: Type.Integer(),
  block_write_bytes: Type.Integer(),
  at: Timestamp,
});
export type BoxStats = Static<typeof BoxStats>;

export const StatsQuery = ClosedObject({
  stream: Type.Optional(
    Type.Union([Type.Literal('1'), Type.Literal('0'), Type.Literal('true'), Type.Literal('false')], {
      description:
        '1 (or true): send one sample a second as application/x-ndjson until the client leaves or the box stops.',
    }),
  ),
});
export type StatsQuery = Static<typeof StatsQuery>;
