import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CORE_FLAGS, ConfigError, USAGE, parseSize, pickCoreArgs, resolveConfig } from './config';
import { STORAGE_DRIVERS } from './storage/storage-driver';

test('the desktop app picks every core flag out of its command line, and nothing else', () => {
  const argv = [
    '.',
    '--no-sandbox',
    '--rate-limit',
    '5',
    '--upload-limit=2G',
    '--enable-logging',
    '--port',
    '0',
    '--data-dir',
    '/tmp/x',
    '--inspect=9229',
  ];
  assert.deepEqual(pickCoreArgs(argv), [
    '--rate-limit',
    '5',
    '--upload-limit=2G',
    '--port',
    '0',
    '--data-dir',
    '/tmp/x',
  ]);
  for (const { flag, arg } of CORE_FLAGS)
    assert.deepEqual(pickCoreArgs([flag, 'v', '--x']), arg ? [flag, 'v'] : [flag], flag);
});

test('a switch (--new-admin-token) takes no value; the driver list in its help is the drivers there are', () => {
  assert.equal(resolveConfig(['--new-admin-token', '--port', '0'], {}).newAdminToken, true);
  assert.equal(resolveConfig([], {}).newAdminToken, false);
  assert.equal(resolveConfig([], { BOXDESK_NEW_ADMIN_TOKEN: '1' }).newAdminToken, true);
  assert.throws(() => resolveConfig(['--new-admin-token=yes'], {}), /takes no value/);
  const help = CORE_FLAGS.find((f) => f.flag === '--storage-driver')!.help;
  for (const driver of STORAGE_DRIVERS) assert.match(help, new RegExp(`\\b${driver}\\b`), driver);
});

test('the usage text lists every flag of the table with its variable', () => {
  for (const { flag, env } of CORE_FLAGS) {
    assert.ok(USAGE.includes(flag), flag);
    assert.ok(USAGE.includes(env), env);
  }
});

test('--upload-limit takes bytes or K/M/G/T, defaults to 1 GiB; nonsense is a ConfigError', () => {
  assert.equal(resolveConfig([], {}).uploadLimit, 1024 ** 3);
  assert.equal(resolveConfig(['--upload-limit', '512M'], {}).uploadLimit, 512 * 1024 ** 2);
  assert.equal(resolveConfig([], { BOXDESK_UPLOAD_LIMIT: '2048' }).uploadLimit, 2048);
  assert.equal(parseSize('1GiB', 'x'), 1024 ** 3);
  for (const bad of ['0', '-1', '1.5G', 'lots', '1X'])
    assert.throws(() => parseSize(bad, '--upload-limit'), ConfigError, bad);
});

test('--default-base must be an image reference', () => {
  assert.throws(() => resolveConfig(['--default-base', 'a/../../127.0.0.1:1'], {}), /image reference/);
  assert.equal(
    resolveConfig(['--default-base', 'registry.local:5000/base:1'], {}).defaultBase,
    'registry.local:5000/base:1',
  );
});

test('--box-log-limit takes a size of at least 1M, default 32 MiB', () => {
  assert.equal(resolveConfig([], {}).boxLogLimit, 32 * 1024 ** 2);
  assert.equal(resolveConfig(['--box-log-limit', '1G'], {}).boxLogLimit, 1024 ** 3);
  assert.equal(resolveConfig([], { BOXDESK_BOX_LOG_LIMIT: '4M' }).boxLogLimit, 4 * 1024 ** 2);
  for (const bad of ['0', '512K', 'none', '-1M'])
    assert.throws(() => resolveConfig(['--box-log-limit', bad], {}), ConfigError, bad);
});

test('the proxy timeouts take seconds (0: no limit), defaults 10 and 60', () => {
  const defaults = resolveConfig([], {});
  assert.deepEqual([defaults.proxyConnectTimeout, defaults.proxyHeaderTimeout], [10, 60]);
  const set = resolveConfig(['--proxy-connect-timeout', '0.5', '--proxy-header-timeout=0'], {});
  assert.deepEqual([set.proxyConnectTimeout, set.proxyHeaderTimeout], [0.5, 0]);
  assert.equal(resolveConfig([], { BOXDESK_PROXY_HEADER_TIMEOUT: '120' }).proxyHeaderTimeout, 120);
  for (const bad of ['-1', 'soon', '', '1e9'])
    assert.throws(() => resolveConfig(['--proxy-header-timeout', bad], {}), ConfigError, bad);
});

test('--storage-driver names a driver or auto (the default); --storage-size takes a size; nonsense is a ConfigError', () => {
  const defaults = resolveConfig([], {});
  assert.equal(defaults.storageDriver, 'auto');
  assert.equal(defaults.storageSize, null);
  assert.equal(resolveConfig(['--storage-driver', 'copy'], {}).storageDriver, 'copy');
  assert.equal(resolveConfig([], { BOXDESK_STORAGE_DRIVER: 'loop-btrfs' }).storageDriver, 'loop-btrfs');
  assert.equal(resolveConfig(['--storage-size', '50G'], {}).storageSize, 50 * 1024 ** 3);
  assert.throws(() => resolveConfig(['--storage-driver', 'zfs'], {}), /--storage-driver must be auto, btrfs/);
  assert.throws(() => resolveConfig(['--storage-size', 'big'], {}), ConfigError);
});

test('--log-format: readable lines on a terminal, JSON when the log goes to a pipe or a file, or as told', () => {
  assert.equal(resolveConfig([], {}, true).logFormat, 'pretty');
  assert.equal(resolveConfig([], {}, false).logFormat, 'json');
  assert.equal(resolveConfig(['--log-format', 'json'], {}, true).logFormat, 'json');
  assert.equal(resolveConfig(['--log-format=pretty'], {}, false).logFormat, 'pretty');
  assert.equal(resolveConfig([], { BOXDESK_LOG_FORMAT: 'json' }, true).logFormat, 'json');
  assert.throws(() => resolveConfig(['--log-format', 'yaml'], {}, true), /--log-format must be pretty or json/);
});

test('--egress-hosts names a file that is there; --egress-port is a fixed port (boxes are told it), 7479 by default', () => {
  assert.equal(resolveConfig([], {}).egressHosts, null);
  assert.equal(resolveConfig(['--egress-hosts', '/etc/hosts'], {}).egressHosts, '/etc/hosts');
  assert.throws(() => resolveConfig(['--egress-hosts', '/no/such/hosts'], {}), /--egress-hosts: no file/);
  assert.equal(resolveConfig([], {}).egressPort, 7479);
  assert.equal(resolveConfig([], { BOXDESK_EGRESS_PORT: '3129' }).egressPort, 3129);
  assert.throws(() => resolveConfig(['--egress-port', '0'], {}), /from 1 to 65535/);
});

test("--engine NAME=URL repeats, each a region in order (the flags replace the environment's list); bad ones are ConfigErrors", () => {
  assert.deepEqual(resolveConfig([], {}).engines, []);
  assert.deepEqual(
    resolveConfig(['--engine', 'local=unix:///var/run/docker.sock', '--engine=far=ssh://me@far.example'], {}).engines,
    [
      { name: 'local', url: 'unix:///var/run/docker.sock' },
      { name: 'far', url: 'ssh://me@far.example' },
    ],
  );
  assert.deepEqual(resolveConfig([], { BOXDESK_ENGINES: 'a=colima,b=tcp://h:2376' }).engines, [
    { name: 'a', url: 'colima' },
    { name: 'b', url: 'tcp://h:2376' },
  ]);
  assert.deepEqual(resolveConfig(['--engine', 'x=desktop-linux'], { BOXDESK_ENGINES: 'a=colima' }).engines, [
    { name: 'x', url: 'desktop-linux' },
  ]);
  for (const bad of ['nourl', 'Big=unix:///s', '=unix:///s', 'a='])
    assert.throws(() => resolveConfig(['--engine', bad], {}), /--engine must be NAME=URL/, bad);
  assert.throws(() => resolveConfig(['--engine', 'a=x', '--engine', 'a=y'], {}), /"a" is given twice/);
});
