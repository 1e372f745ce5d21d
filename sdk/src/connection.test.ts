import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultDataDir, profileEnvName, resolveConnection, type Platform } from './connection';

function platform(env: NodeJS.ProcessEnv, files: Record<string, string> = {}, os: NodeJS.Platform = 'linux'): Platform {
  return { env, platform: os, homedir: '/home/u', readFile: (f) => files[f] };
}

const FULL_ENV = {
  SERVICE_PROFILE: 'my-prod',
  SERVICE_PROFILE_MY_PROD_URL: 'http://profile:1',
  SERVICE_PROFILE_MY_PROD_TOKEN: 'profile-token',
  SERVICE_URL: 'http://service-url:2',
  SERVICE_API_URL: 'http://service-api-url:3',
};
const TOKEN_FILE = { '/home/u/.local/share/boxdesk/token': 'file-token\n' };

describe('resolveConnection', () => {
  it('--url and --token win over everything', () => {
    const c = resolveConnection({ url: 'http://flag:9/', token: 'flag-token' }, platform(FULL_ENV, TOKEN_FILE));
    assert.deepEqual([c.url, c.urlSource, c.token, c.tokenSource], ['http://flag:9', 'flag', 'flag-token', 'flag']);
  });

  it('then the profile from SERVICE_PROFILE, upper-cased with - as _', () => {
    const c = resolveConnection({}, platform(FULL_ENV, TOKEN_FILE));
    assert.deepEqual([c.url, c.token, c.profile], ['http://profile:1', 'profile-token', 'my-prod']);
  });

  it('--profile overrides SERVICE_PROFILE', () => {
    const env = { ...FULL_ENV, SERVICE_PROFILE_CI_URL: 'http://ci:4', SERVICE_PROFILE_CI_TOKEN: 'ci-token' };
    const c = resolveConnection({ profile: 'ci' }, platform(env, TOKEN_FILE));
    assert.deepEqual([c.url, c.token], ['http://ci:4', 'ci-token']);
  });

  it('a profile without a URL falls through to SERVICE_URL, then SERVICE_API_URL', () => {
    const { SERVICE_PROFILE_MY_PROD_URL: _u, ...env } = FULL_ENV;
    assert.equal(resolveConnection({}, platform(env)).url, 'http://service-url:2');
    const { SERVICE_URL: _s, ...env2 } = env;
    const c = resolveConnection({}, platform(env2));
    assert.deepEqual([c.url, c.urlSource], ['http://service-api-url:3', 'SERVICE_API_URL']);
  });

  it('with nothing set, the local core and its token file', () => {
    const c = resolveConnection({}, platform({}, TOKEN_FILE));
    assert.deepEqual(
      [c.url, c.urlSource, c.token, c.tokenSource],
      ['http://127.0.0.1:7420', 'local core', 'file-token', 'token file'],
    );
  });

  it('SERVICE_URL does not bring a token: the token file still applies', () => {
    const c = resolveConnection({}, platform({ SERVICE_URL: 'http://s:1' }, TOKEN_FILE));
    assert.deepEqual([c.url, c.token], ['http://s:1', 'file-token']);
  });

  it('BOXDESK_PORT and BOXDESK_DATA_DIR locate the local core', () => {
    const c = resolveConnection({}, platform({ BOXDESK_PORT: '8000', BOXDESK_DATA_DIR: '/d' }, { '/d/token': 't' }));
    assert.deepEqual([c.url, c.token, c.tokenFile], ['http://127.0.0.1:8000', 't', '/d/token']);
  });

  it('SERVICE_TOKEN comes after the profile and before the token file, which it is never replaced by', () => {
    const env = { SERVICE_TOKEN: 'read-only' };
    const c = resolveConnection({}, platform(env, TOKEN_FILE));
    assert.deepEqual([c.token, c.tokenSource], ['read-only', 'SERVICE_TOKEN']);
    assert.equal(resolveConnection({}, platform({ ...FULL_ENV, ...env }, TOKEN_FILE)).token, 'profile-token');
    assert.equal(resolveConnection({ token: 'flag' }, platform(env, TOKEN_FILE)).token, 'flag');
  });

  it('the local core is found where it wrote that it listens, else on the default port', () => {
    const dir = '/home/u/.local/share/boxdesk';
    const listening = { [`${dir}/listening.json`]: '{"url":"http://127.0.0.1:9123","pid":42}' };
    assert.equal(resolveConnection({}, platform({}, listening)).url, 'http://127.0.0.1:9123');
    const torn = { [`${dir}/listening.json`]: '{"url":"http://127.0' };
    assert.equal(resolveConnection({}, platform({}, torn)).url, 'http://127.0.0.1:7420');
    const elsewhere = { [`${dir}/listening.json`]: '{"url":"http://example.com:80"}' };
    assert.equal(resolveConnection({}, platform({}, elsewhere)).url, 'http://127.0.0.1:7420');
  });

  it('no token anywhere leaves it unset', () => {
    const c = resolveConnection({}, platform({}));
    assert.deepEqual([c.token, c.tokenSource], [undefined, 'none']);
  });

  it('empty variables count as unset', () => {
    const c = resolveConnection({ url: '' }, platform({ SERVICE_URL: '', SERVICE_API_URL: 'http://api:5' }));
    assert.equal(c.url, 'http://api:5');
  });
});

describe('defaultDataDir', () => {
  it('follows the platform, like the core', () => {
    assert.equal(defaultDataDir(platform({})), '/home/u/.local/share/boxdesk');
    assert.equal(defaultDataDir(platform({ XDG_DATA_HOME: '/x' })), '/x/boxdesk');
    assert.equal(defaultDataDir(platform({}, {}, 'darwin')), '/home/u/Library/Application Support/Boxdesk');
    assert.equal(
      defaultDataDir(platform({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, {}, 'win32')),
      'C:\\Users\\u\\AppData\\Roaming\\Boxdesk',
    );
  });

  it('profileEnvName', () => {
    assert.equal(profileEnvName('my-prod'), 'MY_PROD');
  });
});
