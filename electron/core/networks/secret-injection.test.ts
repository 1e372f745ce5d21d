import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostMatches, injectHeaders, replacePlaceholders, secretsFor, type InjectedSecret } from './secret-injection';

const openai: InjectedSecret = {
  name: 'openai',
  value: 'sk-real',
  placeholder: 'boxdesk-secret-openai-aaaa',
  hosts: ['api.openai.test'],
  header: null,
};
const keyed: InjectedSecret = {
  name: 'maps',
  value: 'mk-real',
  placeholder: 'boxdesk-secret-maps-bbbb',
  hosts: ['*.maps.test'],
  header: 'X-Api-Key',
};

test('hosts match by name or by wildcard, case and a trailing dot aside; a wildcard is not its apex', () => {
  assert.equal(hostMatches(['api.openai.test'], 'API.openai.test.'), true);
  assert.equal(hostMatches(['api.openai.test'], 'evil-api.openai.test'), false);
  assert.equal(hostMatches(['*.maps.test'], 'eu.maps.test'), true);
  assert.equal(hostMatches(['*.maps.test'], 'maps.test'), false);
  assert.equal(hostMatches(['*.maps.test'], 'evilmaps.test'), false);
  assert.deepEqual(
    secretsFor([openai, keyed], 'a.maps.test').map((s) => s.name),
    ['maps'],
  );
});

test('a placeholder in a header is replaced; the default header is not added when the request has it', () => {
  const out = injectHeaders(['Host', 'api.openai.test', 'Authorization', `Bearer ${openai.placeholder}`], [openai]);
  assert.deepEqual(out, [
    ['Host', 'api.openai.test'],
    ['Authorization', 'Bearer sk-real'],
  ]);
});

test('an absent header is added: Authorization as Bearer, a named header with the bare value', () => {
  assert.deepEqual(injectHeaders(['Accept', '*/*'], [openai]), [
    ['Accept', '*/*'],
    ['Authorization', 'Bearer sk-real'],
  ]);
  assert.deepEqual(injectHeaders(['x-api-key', 'mine'], [keyed]), [['x-api-key', 'mine']]);
  assert.deepEqual(injectHeaders([], [keyed]), [['X-Api-Key', 'mk-real']]);
});

test("another secret's placeholder, or one for another host, stays a placeholder", () => {
  const text = `q=${openai.placeholder}&k=${keyed.placeholder}`;
  assert.equal(replacePlaceholders(text, [keyed]), `q=${openai.placeholder}&k=mk-real`);
  assert.deepEqual(injectHeaders(['X-Other', openai.placeholder], []), [['X-Other', openai.placeholder]]);
});
