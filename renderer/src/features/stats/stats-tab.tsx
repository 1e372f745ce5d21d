import { LineChart } from '@mantine/charts';
import '@mantine/charts/styles.css';
import { Alert, Paper, SimpleGrid, Text, Title } from '@mantine/core';
import { useMemo } from 'react';
import type { BoxStats } from '../../../../shared/schemas/stats';
import type { DetailTabProps } from '../../app/feature-module';
import { formatBytes } from '../../kit/format';
import { useStatsStream } from './use-stats-stream';

const MIB = 1024 * 1024;

function Chart({
  title,
  caption,
  data,
  series,
  unit,
}: {
  title: string;
  caption: string;
  data: Record<string, number | string | null>[];
  series: { name: string; color: string; label?: string }[];
  unit: string;
}) {
  return (
    <Paper withBorder p="sm" component="figure" m={0} aria-label={`${title} chart`}>
      <Title order={3} size="h5">
        {title}
      </Title>
      <Text size="sm" c="dimmed" component="figcaption" role="status" aria-label={`${title} now`}>
        {caption}
      </Text>
      <LineChart
        h={160}
        mt="xs"
        data={data}
        dataKey="t"
        series={series}
        withDots={false}
        curveType="linear"
        unit={unit}
        withLegend={series.length > 1}
        tickLine="none"
        gridAxis="y"
        withXAxis={false}
        lineChartProps={{ syncId: 'stats' }}
      />
    </Paper>
  );
}

/** The charts' rows: CPU %, memory in MiB, network rates in KiB/s, pids. */
function chartRows(samples: BoxStats[]) {
  return samples.map((s, i) => {
    const prev = samples[i - 1];
    const secs = prev ? Math.max(0.001, (Date.parse(s.at) - Date.parse(prev.at)) / 1000) : 1;
    // Rates need two samples; the first has none (a gap, not a false zero).
    const rate = (now: number, before: number | undefined) =>
      before === undefined ? null : Number((Math.max(0, now - before) / 1024 / secs).toFixed(1));
    return {
      t: new Date(s.at).toLocaleTimeString(),
      cpu: Number(s.cpu_percent.toFixed(1)),
      memory: Number((s.memory_bytes / MIB).toFixed(1)),
      rx: rate(s.net_rx_bytes, prev?.net_rx_bytes),
      tx: rate(s.net_tx_bytes, prev?.net_tx_bytes),
      pids: s.pids,
    };
  });
}

/** CPU, memory, network and pids, live from the stats stream (one sample a second). */
export function StatsTab({ box }: DetailTabProps) {
  const running = box.status === 'running';
  const { samples, error } = useStatsStream(box.project, box.name, running);
  const data = useMemo(() => chartRows(samples), [samples]);
  if (!running)
    return (
      <Alert color="gray" title={`${box.name} is ${box.status}`}>
        Stats are measured while the box runs.
      </Alert>
    );
  const last = samples[samples.length - 1];
  const lastRow = data[data.length - 1];
  return (
    <>
      {error && (
        <Alert color="red" role="alert" title="Could not read the stats" mb="sm">
          {error}
        </Alert>
      )}
      {!last && !error && (
        <Text c="dimmed" role="status">
          Waiting for the first sample…
        </Text>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Chart
          title="CPU"
          caption={last ? `${last.cpu_percent.toFixed(1)} % (100 % = one core)` : '—'}
          data={data}
          series={[{ name: 'cpu', color: 'indigo.6', label: 'CPU %' }]}
          unit="%"
        />
        <Chart
          title="Memory"
          caption={last ? `${formatBytes(last.memory_bytes)} of ${formatBytes(last.memory_limit_bytes)}` : '—'}
          data={data}
          series={[{ name: 'memory', color: 'teal.6', label: 'MiB' }]}
          unit=" MiB"
        />
        <Chart
          title="Network"
          caption={lastRow && lastRow.rx !== null ? `in ${lastRow.rx} KiB/s, out ${lastRow.tx} KiB/s` : '—'}
          data={data}
          series={[
            { name: 'rx', color: 'blue.6', label: 'in KiB/s' },
            { name: 'tx', color: 'orange.6', label: 'out KiB/s' },
          ]}
          unit=" KiB/s"
        />
        <Chart
          title="Processes"
          caption={last ? `${last.pids} processes` : '—'}
          data={data}
          series={[{ name: 'pids', color: 'grape.6', label: 'pids' }]}
          unit=""
        />
      </SimpleGrid>
    </>
  );
}
