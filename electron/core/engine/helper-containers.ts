import type { ContainerEngine, ContainerSpec } from './container-engine';
import { readText } from './log-tail';

/**
 * The labels of a helper container (a volume copy, a store helper, a flatten): this core's
 * instance, the helper's role, and empty box labels, so that the box reconciler never takes it
 * for a box's container.
 */
export function helperLabels(
  instanceId: string,
  role: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    'boxdesk.instance': instanceId,
    'boxdesk.role': role,
    ...extra,
    'boxdesk.id': '',
    'boxdesk.box': '',
    'boxdesk.project': '',
  };
}

/** What a helper's spec names; the rest has defaults. */
type HelperSpecFields = Pick<ContainerSpec, 'name' | 'image' | 'command' | 'hostname' | 'labels'> &
  Partial<ContainerSpec>;

/** A helper container's spec: no environment, no network, one CPU and 256 MB, no root size limit, stopped without grace. */
export function helperSpec(fields: HelperSpecFields): ContainerSpec {
  return {
    env: {},
    limits: { cpus: 1, ramMb: 256, pidsLimit: 256 },
    storageGb: null,
    graceSeconds: 0,
    offline: true,
    ...fields,
  };
}

/**
 * Starts a created helper, waits for its end and reads its output (stdout and stderr as the
 * engine logged them). The helper is removed whatever happens.
 */
export async function runToEnd(engine: ContainerEngine, id: string): Promise<{ code: number; output: string }> {
  try {
    await engine.startContainer(id);
    const code = await engine.waitContainer(id);
    return { code, output: await readText(await engine.logs(id, { follow: false })) };
  } finally {
    await engine.removeContainer(id).catch(() => undefined);
  }
}
