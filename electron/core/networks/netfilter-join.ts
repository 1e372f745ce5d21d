import fs from 'node:fs';
import type { ContainerEngine } from '../engine/container-engine';
import { helperLabels, helperSpec, runToEnd } from '../engine/helper-containers';
import { randomBase32 } from '../ids';
import { tarOf } from './netfilter-image';

/** Not the long-lived helper's role: its sweep of ended helpers must not take one whose output is still to be read. */
export const NETFILTER_JOIN_ROLE = 'netfilter-join';
const RULES_FILE = 'boxdesk-rules';

/**
 * Whether process `pid` of container `containerId` is one this host sees (the engine runs in this
 * host's PID namespace): its cgroup names the container, as the long-lived helper checks too. On a
 * VM or remote engine, or one in a PID namespace of its own, the engine's process ids name other
 * processes here (or none) and the box's namespace is joined through its engine instead.
 */
export function seenOnThisHost(containerId: string, pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    return fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8').includes(containerId);
  } catch {
    return false;
  }
}

/**
 * Loads `rules` (iptables-restore's format) into the network namespace of the running container
 * `containerId` by a helper made for it on the container's own engine: the helper's image, in the
 * box's network namespace (`--network container:<box>`), with NET_ADMIN added and nothing else (no
 * host PID namespace, no SYS_ADMIN, the engine's AppArmor profile), runs iptables-restore on the
 * rules put in it before it starts, and is removed. No socket, so no egress log there.
 */
export async function applyByJoining(
  engine: ContainerEngine,
  helper: { image: string; binary: string; instanceId: string },
  containerId: string,
  rules: string,
): Promise<{ code: number; output: string }> {
  const id = await engine.createContainer(
    helperSpec({
      name: `boxdesk-netfilter-${containerId.slice(0, 12)}-${randomBase32(6)}`,
      image: helper.image,
      command: [helper.binary, 'iptables-restore', `/${RULES_FILE}`],
      hostname: 'boxdesk-netfilter',
      labels: helperLabels(helper.instanceId, NETFILTER_JOIN_ROLE),
      limits: { cpus: 1, ramMb: 64, pidsLimit: 16 },
      helper: { capAdd: ['NET_ADMIN'], devices: [], binds: [], noAppArmor: false, networkOf: containerId },
    }),
  );
  try {
    await engine.putArchive(id, '/', tarOf([{ path: RULES_FILE, data: Buffer.from(rules), mode: 0o644 }]));
  } catch (err) {
    await engine.removeContainer(id).catch(() => undefined);
    throw err;
  }
  return runToEnd(engine, id);
}

/** Join helpers an earlier run of this core left (killed while one ran): nothing waits for them. */
export async function removeJoinLeftovers(engine: ContainerEngine, instanceId: string): Promise<void> {
  const mine = { 'boxdesk.instance': instanceId, 'boxdesk.role': NETFILTER_JOIN_ROLE };
  for (const c of await engine.listContainers(mine)) await engine.removeContainer(c.id).catch(() => undefined);
}
