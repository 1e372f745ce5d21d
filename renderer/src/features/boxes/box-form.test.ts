import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boxFieldOf, boxRules, createBody, updateBody, type BoxValues } from './box-form';

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
  assert.equal(boxFieldOf('limit'), null);
});

const values = (patch: Partial<BoxValues>): BoxValues => ({
  name: 'web',
  source: 'base',
  base: null,
  fork: null,
  cpus: '',
  ram_mb: '',
  environment: [],
  tags: [],
  mounts: [],
  egress: 'open',
  allow: '',
  host: false,
  ...patch,
});

test('the create body sends only what was given; limits are checked against the engine', () => {
  assert.deepEqual(createBody(values({})), { name: 'web' });
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
