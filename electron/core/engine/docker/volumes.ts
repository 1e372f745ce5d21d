import type Docker from 'dockerode';
import type { VolumeInfo, VolumeOptions } from '../container-engine';
import { call, hasLabels, labelFilter, orNull, toEngineError } from './errors';

interface DockerVolume {
  Name: string;
  Labels?: Record<string, string> | null;
  Mountpoint?: string;
  Options?: Record<string, string> | null;
}

function toVolume(v: DockerVolume): VolumeInfo {
  return {
    name: v.Name,
    labels: v.Labels ?? {},
    ...(v.Mountpoint ? { mountpoint: v.Mountpoint } : {}),
    ...(v.Options && Object.keys(v.Options).length ? { driverOptions: v.Options } : {}),
  };
}

export async function createVolume(
  docker: Docker,
  name: string,
  labels: Record<string, string>,
  options?: VolumeOptions,
): Promise<VolumeInfo> {
  await call(() =>
    docker.createVolume({
      Name: name,
      Labels: labels,
      ...(options ? { Driver: 'local', DriverOpts: options.driverOptions } : {}),
    }),
  );
  const volume = await inspectVolume(docker, name);
  if (!volume) throw toEngineError(new Error(`volume "${name}" not found right after creating it`));
  return volume;
}

export async function removeVolume(docker: Docker, name: string): Promise<void> {
  await orNull(() => docker.getVolume(name).remove());
}

export async function listVolumes(docker: Docker, labels: Record<string, string>): Promise<VolumeInfo[]> {
  const result = await call(() => docker.listVolumes({ filters: { label: labelFilter(labels) } }));
  return ((result.Volumes ?? []) as DockerVolume[]).filter((v) => hasLabels(v.Labels, labels)).map(toVolume);
}

export async function inspectVolume(docker: Docker, name: string): Promise<VolumeInfo | null> {
  const v = await orNull(() => docker.getVolume(name).inspect());
  return v ? toVolume(v as DockerVolume) : null;
}
