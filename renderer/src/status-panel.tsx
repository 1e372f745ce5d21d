import { useQuery } from '@tanstack/react-query';
import { createClient, describeError } from './connection';

const client = createClient();

/** Version and engine health; both routes need no token. */
export function StatusPanel() {
  const version = useQuery({ queryKey: ['version'], queryFn: () => client.version(), refetchInterval: 30_000 });
  const health = useQuery({ queryKey: ['health'], queryFn: () => client.health(), refetchInterval: 5_000 });

  let engine: string;
  let engineState: 'ok' | 'bad' | 'unknown' = 'unknown';
  if (health.data) {
    const healthy = health.data.status === 'ok';
    engineState = healthy ? 'ok' : 'bad';
    engine = healthy ? 'Engine: healthy' : `Engine: unreachable — ${health.data.cluster.reason ?? 'no reason given'}`;
  } else if (health.error) {
    engineState = 'bad';
    engine = `Core unreachable — ${describeError(health.error)}`;
  } else {
    engine = 'Engine: checking…';
  }

  return (
    <section aria-labelledby="status-heading" className="panel">
      <h2 id="status-heading">Status</h2>
      <dl className="facts">
        <dt>Version</dt>
        <dd>{version.data ? version.data.version : version.error ? describeError(version.error) : '…'}</dd>
        <dt>Engine version</dt>
        <dd>{version.data ? `${version.data.engine.name} ${version.data.engine.version ?? '(unknown)'}` : '…'}</dd>
      </dl>
      <p role="status" className={`engine engine-${engineState}`}>
        {engine}
      </p>
    </section>
  );
}
