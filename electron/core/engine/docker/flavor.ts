import type Docker from 'dockerode';

/**
 * Which engine answers the Docker Engine API: Docker itself, or Podman's compatible service
 * (`podman system service`), which differs in places (docs/engines.md). Learnt from GET /version
 * (Podman names a component "Podman Engine"), once per client; a failed look is asked again.
 */
export type Flavor = 'docker' | 'podman';

const known = new WeakMap<Docker, Promise<Flavor>>();

export function flavorOf(docker: Docker): Promise<Flavor> {
  let flavor = known.get(docker);
  if (!flavor) {
    flavor = docker.version().then(
      (v) => flavorOfVersion(v),
      (err: unknown) => {
        known.delete(docker);
        throw err;
      },
    );
    known.set(docker, flavor);
  }
  return flavor;
}

/** The flavor a GET /version answer names. */
export function flavorOfVersion(version: { Components?: { Name?: string }[] }): Flavor {
  return (version.Components ?? []).some((c) => /podman/i.test(c.Name ?? '')) ? 'podman' : 'docker';
}

/** Whether Podman answers (one GET /version per client, then known). */
export async function isPodman(docker: Docker): Promise<boolean> {
  return (await flavorOf(docker)) === 'podman';
}

/** A call to Podman's own API (libpod), for what its Docker-compatible API lacks; JSON in and out. */
export function podmanCall(docker: Docker, method: string, path: string, body: unknown): Promise<unknown> {
  return new Promise((resolve, reject) =>
    docker.modem.dial(
      {
        // Podman serves its own API under any version prefix; 4.0.0 is the oldest it names.
        path: `/v4.0.0/libpod${path}`,
        method,
        options: { _body: body },
        statusCodes: { 200: true, 201: true, 204: true, 404: 'no such container', 500: 'server error' },
      },
      (err, data) => (err ? reject(err) : resolve(data)),
    ),
  );
}
