import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ok, runBox } from '../test-support/cli-runner';

/** What `box ARGS` prints, once it has exited 0. */
const box = async (...args: string[]) => ok(await runBox(args), `box ${args.join(' ')}`).stdout;

describe('box completion', () => {
  let dir: string;
  let bashScript: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-completion-'));
    bashScript = path.join(dir, 'box.bash');
    fs.writeFileSync(bashScript, await box('completion', 'bash'));
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Sources the script in a real bash and asks its completion function about `words`, the last one being completed. */
  function complete(...words: string[]): string[] {
    const array = ['box', ...words].map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
    const script = `source "$1"; COMP_WORDS=(${array}); COMP_CWORD=${words.length}; _box; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const run = spawnSync('bash', ['--norc', '--noprofile', '-c', script, 'bash', bashScript], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, '');
    return run.stdout.split('\n').filter(Boolean).sort();
  }

  it('bash: completes top-level commands, a group’s commands, options and option values', async () => {
    const help = await box('--help');
    const topLevel = [...help.matchAll(/^ {2}([a-z]+)[ [<]/gm)].map((m) => m[1]!);
    assert.deepEqual(complete('st'), topLevel.filter((c) => c.startsWith('st')).sort());
    assert.ok(complete('st').includes('stop'));
    assert.deepEqual(complete('token', ''), ['create', 'ls', 'rm']);
    assert.deepEqual(complete('base', ''), ['add', 'build', 'create', 'import', 'ls', 'rm', 'update']);
    assert.deepEqual(complete('create', 'web', '--w'), ['--wait']);
    assert.ok(complete('token', 'create', '--').includes('--scope'), 'a group command’s own options');
    assert.ok(complete('ls', '--').includes('--url'), 'global options on every command');
    assert.deepEqual(complete('-o', 'json', 'ls', '-o', ''), ['json', 'table', 'yaml']);
    assert.deepEqual(complete('token', 'create', 'ci', '--scope', 'e'), ['exec']);
    assert.deepEqual(complete('--url', 'http://x', 'get', 'web', '--cpus', ''), [], 'a value nobody can guess');
  });

  it('zsh and fish scripts name every command and option', async () => {
    const zsh = await box('completion', 'zsh');
    const fish = await box('completion', 'fish');
    assert.match(zsh, /^#compdef box\n/);
    assert.match(zsh, /'token create'/);
    assert.match(zsh, /'stop:stop a box/);
    assert.match(zsh, /'--wait:wait until the box is running/);
    assert.match(zsh, /\(-o\) compadd -- table json yaml; return ;;/);
    assert.match(fish, /^complete -c box -n 'test \(__box_path\) = "box token"' -a 'create' -d 'create an API token/m);
    assert.match(fish, /^complete -c box -n 'test \(__box_path\) = "box stop"' -l wait -d /m);
    assert.match(fish, /-s o -l output -x -a 'table json yaml'/);
    for (const shell of ['zsh', 'fish']) {
      // Syntax-check where the shell is installed (it is not required here).
      const check = spawnSync(shell, shell === 'zsh' ? ['-n', '-c', zsh] : ['-n', '-c', fish], { encoding: 'utf8' });
      if (check.error) continue;
      assert.equal(check.status, 0, `${shell} -n: ${check.stderr}`);
    }
  });
});
