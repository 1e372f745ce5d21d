import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  EMPTY_SERVICE,
  createBody,
  deployBody,
  nameError,
  serviceFieldOf,
  serviceRules,
  serviceUrl,
} from './service-form';

test('a name follows the schema: a DNS label short enough for NAME-green', () => {
  assert.equal(nameError('web'), null);
  assert.equal(nameError('a'.repeat(57)), null);
  assert.match(nameError('a'.repeat(58)) ?? '', /1–57/);
  assert.match(nameError('Web') ?? '', /lower-case/);
  assert.match(nameError('web-') ?? '', /lower-case/);
  assert.equal(nameError(''), 'A name is needed');
});

test('port and health numbers are bounded as the schema bounds them', () => {
  assert.equal(serviceRules.port(8080), null);
  assert.ok(serviceRules.port(70000));
  assert.ok(serviceRules.port(''));
  assert.equal(serviceRules.interval_s(0.2), null);
  assert.match(serviceRules.interval_s(0.05) ?? '', /from 0.1/);
  assert.match(serviceRules.healthy_threshold(1.5) ?? '', /whole/);
});

test("a problem's path names its field", () => {
  assert.equal(serviceFieldOf('name'), 'name');
  assert.equal(serviceFieldOf('health_check.interval_s'), 'interval_s');
  assert.equal(serviceFieldOf('health_check.path'), 'health_path');
  assert.equal(serviceFieldOf('environment.1X'), 'environment');
  assert.equal(serviceFieldOf('command.0'), 'command');
  assert.equal(serviceFieldOf('data_mounts'), null);
});

test('the create body sends the command through sh -c and only the health settings that differ from the defaults', () => {
  const body = createBody({
    ...EMPTY_SERVICE,
    name: 'web',
    port: 8080,
    command: 'exec httpd -f -p 8080',
    environment: [{ key: 'VERSION', value: '1' }],
    interval_s: 0.2,
    auth: 'public',
  });
  assert.deepEqual(body, {
    name: 'web',
    port: 8080,
    auth: 'public',
    command: ['sh', '-c', 'exec httpd -f -p 8080'],
    environment: { VERSION: '1' },
    health_check: { interval_s: 0.2 },
  });
});

test('a deploy sends only what changed', () => {
  const current = { base: 'default', command: ['sh', '-c', 'exec httpd'] };
  assert.deepEqual(deployBody({ base: 'default', command: 'exec httpd', environment: [] }, current), {});
  assert.deepEqual(
    deployBody({ base: 'alpine', command: 'exec httpd -v', environment: [{ key: 'VERSION', value: '2' }] }, current),
    {
      base: 'alpine',
      command: ['sh', '-c', 'exec httpd -v'],
      environment: { VERSION: '2' },
    },
  );
});

test('the URL the create dialog promises carries the preview proxy’s port, as the card shows it', () => {
  assert.equal(serviceUrl('web', 'shop', 7421), 'http://web--shop.localhost:7421');
  assert.equal(serviceUrl('', 'shop', 41234), 'http://NAME--shop.localhost:41234');
  assert.equal(serviceUrl('web', 'shop', undefined), 'http://web--shop.localhost:PORT');
});
