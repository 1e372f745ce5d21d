import Docker from 'dockerode';

/** Direct engine access for tests: to look behind the core's back, or act there. */
export const docker = new Docker();

export async function containersOfBox(boxId: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`boxdesk.id=${boxId}`] } });
}

export async function containersOfInstance(instance: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`boxdesk.instance=${instance}`] } });
}

export async function waitFor<T>(probe: () => Promise<T | undefined | null | false>, ms = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
