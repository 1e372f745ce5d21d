import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flavorOfVersion } from './flavor';

test("the engine's flavor from GET /version: Podman names a component so, Docker does not", () => {
  // Trimmed from Podman 4.3.1's and Docker 20.10's own answers.
  const podman = { Components: [{ Name: 'Podman Engine' }, { Name: 'Conmon' }, { Name: 'OCI Runtime (runc)' }] };
  const docker = {
    Components: [{ Name: 'Engine' }, { Name: 'containerd' }, { Name: 'runc' }, { Name: 'docker-init' }],
  };
  assert.equal(flavorOfVersion(podman), 'podman');
  assert.equal(flavorOfVersion(docker), 'docker');
  assert.equal(flavorOfVersion({}), 'docker', 'an engine that names no components is taken for Docker');
});
