import assert from 'node:assert/strict';
import type { Box } from '../shared/schemas/box';
import type { Snapshot } from '../shared/schemas/snapshots';
import { docker } from './docker';

type Api = (method: string, pathname: string, body?: unknown, headers?: Record<string, string>) => Promise<Response>;

/** Small helpers over the snapshot routes for the integration tests. */
export function snapshotApi(api: Api, project: string) {
  const boxes = `/v1/projects/${project}/boxes`;
  const expect = async <T>(res: Response, status: number): Promise<T> => {
    const text = await res.text();
    assert.equal(res.status, status, text);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return {
    boxes,
    expect,
    create: async (name: string, extra: Record<string, unknown> = {}) => expect<Box>(await api('POST', boxes, { name, ...extra }), 201),
    snapshot: async (box: string, name?: string) => expect<Snapshot>(await api('POST', `${boxes}/${box}/snapshots`, name ? { name } : {}), 201),
    restore: async (box: string, snapshotId: string) => expect<Box>(await api('POST', `${boxes}/${box}/restore`, { snapshot_id: snapshotId }), 200),
    sh: async (box: string, script: string) => {
      const r = await expect<{ exit_code: number; stdout: string; stderr: string }>(await api('POST', `${boxes}/${box}/exec`, { command: ['sh', '-c', script] }), 200);
      return r;
    },
    read: async (box: string, path: string) => {
      const r = await expect<{ exit_code: number; stdout: string }>(await api('POST', `${boxes}/${box}/exec`, { command: ['cat', path] }), 200);
      return r.exit_code === 0 ? r.stdout : null;
    },
    remove: async (box: string) => api('DELETE', `${boxes}/${box}`).then((r) => r.arrayBuffer()),
  };
}

/** Images carrying this core's instance label (everything it committed or imported). */
export async function imagesOfInstance(instance: string): Promise<{ Id: string; Labels: Record<string, string> }[]> {
  return (await docker.listImages({ filters: { label: [`boxdesk.instance=${instance}`] } })) as { Id: string; Labels: Record<string, string> }[];
}
