import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { discoverEngine, givenEngine, optionsFor, realHost, type DiscoveryHost } from './discovery';

// A machine in a temporary directory: its files and Unix sockets are real, and absolute paths
// (/var/run/docker.sock, /run/podman/podman.sock) are looked up under it.
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-discovery-'));
const servers: net.Server[] = [];
after(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  fs.rmSync(root, { recursive: true, force: true });
});

function machine(name: string, env: NodeJS.ProcessEnv = {}): DiscoveryHost & { dir: string; home: string } {
  const dir = path.join(root, name);
  const home = path.join(dir, 'home');
  fs.mkdirSync(home, { recursive: true });
  const real = realHost();
  const inside = (file: string) => path.join(dir, file);
  return {
    dir,
    env: { XDG_RUNTIME_DIR: '/run/user/1000', ...env },
    home,
    uid: 1000,
    isSocket: (file) => real.isSocket(inside(file)),
    readFile: (file) => real.readFile(file.startsWith(home) ? file : inside(file)),
  };
}

async function socketAt(host: { dir: string }, file: string): Promise<void> {
  const at = path.join(host.dir, file);
  fs.mkdirSync(path.dirname(at), { recursive: true });
  const server = net.createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(at, resolve));
}

function writeContext(home: string, name: string, hostUrl: string, current = true): string {
  const digest = createHash('sha256').update(name).digest('hex');
  const meta = path.join(home, '.docker', 'contexts', 'meta', digest);
  fs.mkdirSync(meta, { recursive: true });
  fs.writeFileSync(
    path.join(meta, 'meta.json'),
    JSON.stringify({ Name: name, Endpoints: { docker: { Host: hostUrl } } }),
  );
  if (current) fs.writeFileSync(path.join(home, '.docker', 'config.json'), JSON.stringify({ currentContext: name }));
  return digest;
}

describe('finding the local engine', () => {
  test('DOCKER_HOST comes first, and dockerode reads it (and its TLS variables) itself', async () => {
    const host = machine('env', { DOCKER_HOST: 'tcp://10.0.0.5:2376' });
    await socketAt(host, '/var/run/docker.sock');
    writeContext(host.home, 'colima', 'unix:///home/u/.colima/default/docker.sock');
    assert.deepEqual(discoverEngine(host), { url: 'tcp://10.0.0.5:2376', foundBy: 'DOCKER_HOST', options: undefined });
  });

  test("the current Docker context comes before the sockets; DOCKER_CONTEXT before the config's", async () => {
    const host = machine('context');
    await socketAt(host, '/var/run/docker.sock');
    writeContext(host.home, 'colima', 'unix:///home/u/.colima/default/docker.sock');
    assert.deepEqual(discoverEngine(host), {
      url: 'unix:///home/u/.colima/default/docker.sock',
      foundBy: 'the Docker context "colima"',
      options: { socketPath: '/home/u/.colima/default/docker.sock' },
    });
    writeContext(host.home, 'remote', 'ssh://me@build.example:2222', false);
    const viaEnv = discoverEngine({ ...host, env: { ...host.env, DOCKER_CONTEXT: 'remote' } });
    assert.equal(viaEnv.foundBy, 'the Docker context "remote"');
    assert.deepEqual(viaEnv.options, { protocol: 'ssh', host: 'build.example', port: 2222, username: 'me' });
    // "default" is the default: DOCKER_HOST or the socket.
    const byDefault = discoverEngine({ ...host, env: { ...host.env, DOCKER_CONTEXT: 'default' } });
    assert.equal(byDefault.foundBy, "Docker's socket");
  });

  test('a context with TLS files beside it speaks https with them', () => {
    const host = machine('tls');
    const digest = writeContext(host.home, 'secure', 'tcp://engine.example:2376');
    const tls = path.join(host.home, '.docker', 'contexts', 'tls', digest, 'docker');
    fs.mkdirSync(tls, { recursive: true });
    for (const f of ['ca.pem', 'cert.pem', 'key.pem']) fs.writeFileSync(path.join(tls, f), `${f} content`);
    assert.deepEqual(discoverEngine(host).options, {
      protocol: 'https',
      host: 'engine.example',
      port: 2376,
      ca: 'ca.pem content',
      cert: 'cert.pem content',
      key: 'key.pem content',
    });
  });

  test("Docker's socket, then rootless Docker's, then Podman's rootful and rootless sockets, the first that exists", async () => {
    const host = machine('sockets');
    assert.equal(discoverEngine(host).foundBy, "Docker's default socket (no engine found yet)");
    assert.equal(discoverEngine(host).url, 'unix:///var/run/docker.sock');
    await socketAt(host, '/run/user/1000/podman/podman.sock');
    assert.deepEqual(discoverEngine(host), {
      url: 'unix:///run/user/1000/podman/podman.sock',
      foundBy: "Podman's socket (rootless)",
      options: { socketPath: '/run/user/1000/podman/podman.sock' },
    });
    await socketAt(host, '/run/podman/podman.sock');
    assert.equal(discoverEngine(host).foundBy, "Podman's socket (rootful)");
    await socketAt(host, '/run/user/1000/docker.sock');
    assert.equal(discoverEngine(host).foundBy, "rootless Docker's socket");
    await socketAt(host, '/var/run/docker.sock');
    assert.equal(discoverEngine(host).foundBy, "Docker's socket");
  });

  test('a file that is not a socket, or a broken config, is passed over', () => {
    const host = machine('broken');
    fs.mkdirSync(path.join(host.dir, 'var/run'), { recursive: true });
    fs.writeFileSync(path.join(host.dir, 'var/run/docker.sock'), 'not a socket');
    fs.mkdirSync(path.join(host.home, '.docker'), { recursive: true });
    fs.writeFileSync(path.join(host.home, '.docker', 'config.json'), '{ currentContext: ');
    assert.equal(discoverEngine(host).foundBy, "Docker's default socket (no engine found yet)");
    // A current context whose metadata is gone is passed over too.
    fs.writeFileSync(path.join(host.home, '.docker', 'config.json'), JSON.stringify({ currentContext: 'gone' }));
    assert.equal(discoverEngine(host).foundBy, "Docker's default socket (no engine found yet)");
  });

  test('engine URLs become dockerode options; other schemes are refused by name', () => {
    const host = machine('urls');
    assert.deepEqual(optionsFor('unix:///run/x%20y.sock', host), { socketPath: '/run/x y.sock' });
    assert.deepEqual(optionsFor('tcp://10.1.2.3', host), { protocol: 'http', host: '10.1.2.3', port: 2375 });
    assert.deepEqual(optionsFor('ssh://box-host', host), { protocol: 'ssh', host: 'box-host', port: 22 });
    assert.throws(() => optionsFor('npipe:////./pipe/docker_engine', host), /npipe:.*is not unix:\/\//);
  });

  test('an --engine is a URL (tcp:// with the TLS dir given) or a Docker context by name; anything else says so', () => {
    const host = machine('given');
    writeContext(host.home, 'colima', 'unix:///home/u/.colima/default/docker.sock', false);
    assert.deepEqual(givenEngine('colima', null, host), {
      url: 'unix:///home/u/.colima/default/docker.sock',
      foundBy: 'the Docker context "colima"',
      options: { socketPath: '/home/u/.colima/default/docker.sock' },
    });
    fs.mkdirSync(path.join(host.dir, 'certs'), { recursive: true });
    for (const f of ['ca.pem', 'cert.pem', 'key.pem']) fs.writeFileSync(path.join(host.dir, 'certs', f), f);
    const tls = givenEngine('tcp://far.example:2376', '/certs', host);
    assert.equal(tls.foundBy, 'given to the core (--engine)');
    assert.deepEqual(tls.options, {
      protocol: 'https',
      host: 'far.example',
      port: 2376,
      ca: 'ca.pem',
      cert: 'cert.pem',
      key: 'key.pem',
    });
    assert.throws(() => givenEngine('nosuchcontext', null, host), /neither an engine URL .* nor a Docker context/);
  });
});
