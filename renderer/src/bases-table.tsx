import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { createClient, describeError } from './connection';

function formatSize(bytes: number | null): string {
  if (bytes === null) return '—';
  const mib = bytes / (1024 * 1024);
  return mib >= 1024 ? `${(mib / 1024).toFixed(1)} GiB` : `${mib.toFixed(1)} MiB`;
}

export function BasesTable({ token }: { token: string }) {
  const client = useMemo(() => createClient(token), [token]);
  const bases = useQuery({ queryKey: ['bases', token], queryFn: () => client.listBases() });

  return (
    <section aria-labelledby="bases-heading" className="panel">
      <h2 id="bases-heading">Bases</h2>
      {bases.isPending && <p role="status">Loading bases…</p>}
      {bases.isError && (
        <p role="alert" className="error">
          {describeError(bases.error)}
        </p>
      )}
      {bases.data &&
        (bases.data.items.length === 0 ? (
          <p>No bases yet.</p>
        ) : (
          <table aria-labelledby="bases-heading">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Image</th>
                <th scope="col">Size</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {bases.data.items.map((base) => (
                <tr key={base.name}>
                  <th scope="row">{base.name}</th>
                  <td>
                    <code>{base.image}</code>
                  </td>
                  <td>{formatSize(base.size_bytes)}</td>
                  <td>
                    <time dateTime={base.created_at}>{new Date(base.created_at).toLocaleString()}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </section>
  );
}
