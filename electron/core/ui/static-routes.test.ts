import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tempDataDir } from '../../../test-support/core-process';
import { UI_CSP, resolveUiFile, uiContentSecurityPolicy } from './static-routes';

test('resolveUiFile serves files of the build and never anything outside it', (t) => {
  const parent = tempDataDir('boxdesk-ui-');
  t.after(() => fs.rmSync(parent, { recursive: true, force: true }));
  const root = path.join(parent, 'dist');
  fs.mkdirSync(root);
  fs.mkdirSync(path.join(root, 'assets'));
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html>');
  fs.writeFileSync(path.join(root, 'assets', 'app.js'), '');
  fs.writeFileSync(path.join(parent, 'secret.txt'), 'no');
  assert.deepEqual(resolveUiFile(root, '/assets/app.js'), {
    file: path.join(root, 'assets', 'app.js'),
    contentType: 'text/javascript; charset=utf-8',
  });
  const index = { file: path.join(root, 'index.html'), contentType: 'text/html; charset=utf-8' };
  for (const attempt of [
    '/../secret.txt',
    '..%2Fsecret.txt',
    '/assets/../../secret.txt',
    '%2e%2e/secret.txt',
    '/boxes/web',
    '/assets',
    '%E0%A4%A',
  ]) {
    assert.deepEqual(resolveUiFile(root, attempt), index, attempt);
  }
});

test('one Content-Security-Policy for both ways the UI is served; the desktop one adds only the API origins', () => {
  const headless = uiContentSecurityPolicy();
  const desktop = uiContentSecurityPolicy(['http://127.0.0.1:7420', 'ws://127.0.0.1:7420']);
  assert.equal(headless, UI_CSP);
  assert.match(headless, /connect-src 'self';/);
  assert.match(desktop, /connect-src 'self' http:\/\/127\.0\.0\.1:7420 ws:\/\/127\.0\.0\.1:7420;/);
  assert.equal(desktop.replace(/ http:\S+ ws:\S+;/, ';'), headless, 'nothing else differs');
  for (const directive of ["script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"])
    assert.ok(headless.includes(directive));
});
