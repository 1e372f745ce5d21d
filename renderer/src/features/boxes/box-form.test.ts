import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boxFieldOf, boxRules, boxValues, createBody, updateBody, type BoxValues } from './box-form';
import { sampleBox } from './sample-box';

test("a problem's errors[].path (without its body. prefix) names the form field", () => {
  assert.equal(boxFieldOf('name'), 'name');
  assert.equal(boxFieldOf('config.cpus'), 'cpus');
  assert.equal(boxFieldOf('config.ram_mb'), 'ram_mb');
  assert.equal(boxFieldOf('environment.1X'), 'environment');
  assert.equal(boxFieldOf('tags'), 'tags');
  assert.equal(boxFieldOf('fork'), 'fork');
  assert.equal(boxFieldOf('data_mounts.0.path'), 'mounts');
  assert.equal(boxFieldOf('network.allow.2'), 'allow');
  assert.equal(boxFieldOf('network.egress'), 'egress');
  assert.equal(boxFieldOf('config.region'), 'region');
  assert.equal(boxFieldOf('limit'), null);
});

const values = (patch: Partial<BoxValues>): BoxValues => ({
  name: 'web',
  source: 'base',
  base: null,
  fork: null,
  region: null,
  cpus: '',
  ram_mb: '',
  environment: [],
  tags: [],
  mounts: [],
  lifecycle: boxValues().lifecycle,
  egress: 'open',
  allow: '',
  host: false,
  secrets: [],
  ...patch,
});

test('the create body sends only what was given; limits are checked against the engine', () => {
  assert.deepEqual(createBody(values({})), { name: 'web' });
  assert.deepEqual(createBody(values({ region: 'far' })), { name: 'web', config: { region: 'far' } });
  assert.equal(createBody(values({ region: 'far', source: 'fork', fork: 'db' })).config, undefined, 'a fork stays');
  assert.deepEqual(createBody(values({ source: 'fork', fork: 'db', base: 'alpine', cpus: 2 })), {
    name: 'web',
    config: { cpus: 2 },
    fork: 'db',
  });
  const rules = boxRules(false, 4, 2048);
  assert.match(rules.cpus(8) ?? '', /from 1 to 4 \(what the engine has\)/);
  assert.equal(rules.ram_mb(''), null);
  assert.match(rules.name('Web') ?? '', /lower-case/);
  assert.equal(boxRules(true, 4, 2048).name(''), null, 'an edited box keeps its name');
});

test('the clocks in words: "pause after 10 minutes idle" is 600 s; empty is never; an edit keeps the expiry', () => {
  const clocks = boxValues().lifecycle;
  const lifecycle = {
    ...clocks,
    pause: { amount: 10, unit: 'minutes' as const },
    remove: { amount: 1, unit: 'days' as const },
  };
  assert.deepEqual(createBody(values({ lifecycle })).lifecycle, {
    auto_pause_s: 600,
    auto_stop_s: null,
    auto_delete_s: 86400,
  });
  assert.equal(createBody(values({})).lifecycle, undefined, 'no clock given: none sent');
  const box = sampleBox('web', 'running', {
    lifecycle: { auto_pause_s: 7200, auto_stop_s: 90, auto_delete_s: null, expires_at: '2030-01-01T00:00:00.000Z' },
  });
  const edited = boxValues(box);
  assert.deepEqual(edited.lifecycle.pause, { amount: 2, unit: 'hours' });
  assert.deepEqual(edited.lifecycle.stop, { amount: 90, unit: 'seconds' });
  assert.equal('expires_at' in updateBody(edited).lifecycle!, false, 'the expiry is kept');
  const rules = boxRules(false, null, null);
  const zero = values({ lifecycle: { ...clocks, stop: { amount: 0, unit: 'hours' } } });
  assert.match(rules.lifecycle.stop.amount(null, zero) ?? '', /at least 1/);
});

test('Internet: the create body has a network only when it is not the default; the allow list is checked line by line', () => {
  assert.equal(createBody(values({ allow: '10.0.0.0/8' })).network, undefined, 'open: the list is not sent');
  assert.deepEqual(createBody(values({ egress: 'allowlist', allow: ' 10.0.0.0/8\n\napi.example.com:443 ' })).network, {
    egress: 'allowlist',
    allow: ['10.0.0.0/8', 'api.example.com:443'],
    host: false,
  });
  assert.deepEqual(updateBody(values({ egress: 'none', host: true })).network, {
    egress: 'none',
    allow: [],
    host: true,
  });
  const rules = boxRules(false, null, null);
  const form = values({ egress: 'allowlist' });
  assert.match(rules.allow('10.0.0.0/8\n10.0.0.0/33', form) ?? '', /^10\.0\.0\.0\/33: .*prefix length/);
  assert.equal(rules.allow('10.0.0.0/33', values({ egress: 'open' })), null, 'an unused list is not checked');
});

test('Secrets: sent on create only when picked, always on update (an empty list takes them away); a problem lands on the field', () => {
  assert.equal(createBody(values({})).secrets, undefined);
  assert.deepEqual(createBody(values({ secrets: ['openai'] })).secrets, ['openai']);
  assert.deepEqual(updateBody(values({})).secrets, []);
  assert.equal(boxFieldOf('secrets.0'), 'secrets');
});
