import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boxFieldOf, boxRules, createBody, type BoxValues } from './box-form';

test("a problem's errors[].path (without its body. prefix) names the form field", () => {
  assert.equal(boxFieldOf('name'), 'name');
  assert.equal(boxFieldOf('config.cpus'), 'cpus');
  assert.equal(boxFieldOf('config.ram_mb'), 'ram_mb');
  assert.equal(boxFieldOf('environment.1X'), 'environment');
  assert.equal(boxFieldOf('tags'), 'tags');
  assert.equal(boxFieldOf('fork'), 'fork');
  assert.equal(boxFieldOf('data_mounts.0.path'), 'mounts');
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
