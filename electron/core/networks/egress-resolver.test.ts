import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { EgressResolver, parseHostsFile } from './egress-resolver';

test('a hosts file: an address and its names a line, comments and IPv6 left out, a name under two addresses has both', () => {
  const names = parseHostsFile(
    '# outside\n10.0.0.2 api.test API2.test # the API\n::1 six.test\n10.0.0.3 api.test\nnonsense\n',
  );
  assert.deepEqual(names.get('api.test'), ['10.0.0.2', '10.0.0.3']);
  assert.deepEqual(names.get('api2.test'), ['10.0.0.2']);
  assert.equal(names.get('six.test'), undefined);
});

test('the file is read before DNS and again when it changes; an address is itself', async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'egress-hosts-')), 'hosts');
  fs.writeFileSync(file, '10.0.0.2 localhost\n');
  const resolver = new EgressResolver(file);
  assert.deepEqual(await resolver.resolve('localhost'), ['10.0.0.2'], 'the file before the system resolver');
  assert.deepEqual(await resolver.resolve('203.0.113.7'), ['203.0.113.7']);
  fs.writeFileSync(file, '10.0.0.9 localhost\n');
  fs.utimesSync(file, new Date(), new Date(Date.now() + 5_000));
  assert.deepEqual(await resolver.resolve('localhost'), ['10.0.0.9']);
  fs.rmSync(path.dirname(file), { recursive: true });
  assert.deepEqual(await resolver.resolve('localhost'), ['127.0.0.1'], 'gone: the system resolver');
});
