import type Docker from 'dockerode';
import type { Readable } from 'node:stream';
import type { Disposable } from '../../lifetime';
import type { ContainerEvent, ContainerEventKind } from '../container-engine';
import { call, hasLabels, labelFilter } from './errors';
import { onLines } from './json-lines';
import { forgetAddress } from './networks';

interface DockerEvent {
  id?: string;
  Action?: string;
  Actor?: { ID?: string; Attributes?: Record<string, string> };
}

const KINDS: Record<string, ContainerEventKind> = {
  start: 'started',
  die: 'exited',
  stop: 'exited',
  oom: 'oom',
  destroy: 'removed',
  remove: 'removed', // Podman's word for it
  pause: 'paused',
  unpause: 'unpaused',
};

/** Docker's event as a domain event; null for the actions the core does not care about. */
export function toContainerEvent(e: DockerEvent): ContainerEvent | null {
  const kind = KINDS[e.Action ?? ''];
  if (!kind) return null;
  const attributes = e.Actor?.Attributes ?? {};
  const event: ContainerEvent = { containerId: e.Actor?.ID ?? e.id ?? '', labels: attributes, kind };
  if (e.Action === 'die' && attributes.exitCode !== undefined) event.exitCode = Number(attributes.exitCode);
  if (kind === 'oom') event.oom = true;
  return event;
}

export async function watchEvents(
  docker: Docker,
  labels: Record<string, string>,
  onEvent: (event: ContainerEvent) => void,
  onEnd: (err?: Error) => void,
): Promise<Disposable> {
  const stream = (await call(() =>
    docker.getEvents({ filters: { type: ['container'], label: labelFilter(labels) } }),
  )) as Readable;
  onLines(stream, (line) => {
    let event: ContainerEvent | null;
    try {
      event = toContainerEvent(JSON.parse(line) as DockerEvent);
    } catch {
      return; // a torn line from a dying stream; the next reconcile covers it
    }
    if (!event || !hasLabels(event.labels, labels)) return;
    // Stopped or started outside the core too (docker stop, a restart policy): its address is not known any more.
    if (event.kind === 'exited' || event.kind === 'started' || event.kind === 'removed')
      forgetAddress(docker, event.containerId);
    onEvent(event);
  });
  let ended = false;
  const end = (err?: Error) => {
    if (ended) return;
    ended = true;
    onEnd(err);
  };
  stream.on('end', () => end());
  stream.on('error', (err: Error) => end(err));
  stream.on('close', () => end());
  return {
    dispose: () => {
      ended = true;
      stream.destroy();
    },
  };
}
