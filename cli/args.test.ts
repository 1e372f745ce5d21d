import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError, intOption, keyValues, parseArgs, splitCommand, type OptionSpecs } from './args';
import { applyEdits, tagFilter } from './commands/boxes';
import { exitStatus } from './commands/exec';
import { GLOBAL_OPTIONS } from './main';
import { parseFormat, table } from './output';

const specs: OptionSpecs = {
  ...GLOBAL_OPTIONS,
  env: { kind: 'list', help: '' },
  cpus: { kind: 'string', help: '' },
  tty: { kind: 'boolean', short: 't', help: '' },
};

describe('parseArgs', () => {
  it('reads long, short, inline and repeated options around positionals', () => {
    const args = parseArgs(['b1', '--cpus', '2', '-o', 'json', '--env=A=1', '--env', 'B=2', '-t', '--url=http://x:1'], specs);
    assert.deepEqual(args.positionals, ['b1']);
    assert.equal(args.strings.cpus, '2');
    assert.equal(args.strings.output, 'json');
    assert.equal(args.strings.url, 'http://x:1');
    assert.deepEqual(args.lists.env, ['A=1', 'B=2']);
    assert.ok(args.booleans.has('tty'));
  });

  it('passes everything after -- through untouched', () => {
    const args = parseArgs(['b1', '-t', '--', 'sh', '-c', 'echo --cpus'], specs);
    assert.deepEqual(args.positionals, ['b1']);
    assert.deepEqual(args.rest, ['sh', '-c', 'echo --cpus']);
  });

  it('with maxPositionals, the command after NAME keeps its own flags', () => {
    const args = parseArgs(['-t', 'b1', 'ls', '-la', '--cpus'], specs, { maxPositionals: 1 });
    assert.deepEqual(args.positionals, ['b1']);
    assert.deepEqual(args.rest, ['ls', '-la', '--cpus']);
    assert.ok(args.booleans.has('tty'));
  });

  it('refuses unknown options, missing values and values on switches', () => {
    assert.throws(() => parseArgs(['--nope'], specs), (e: Error) => e instanceof UsageError && /unknown option --nope/.test(e.message));
    assert.throws(() => parseArgs(['--cpus'], specs), /--cpus needs a value/);
    assert.throws(() => parseArgs(['--tty=1'], specs), /takes no value/);
  });
});

describe('splitCommand', () => {
  const depth = (first: string) => (first === 'token' ? 2 : 1);
  it('skips global options (and their values) before the command words', () => {
    assert.deepEqual(splitCommand(['--url', 'http://x', '-o', 'json', 'token', 'create', 'ci', '--scope', 'read'], GLOBAL_OPTIONS, depth), {
      command: ['token', 'create'],
      args: ['--url', 'http://x', '-o', 'json', 'ci', '--scope', 'read'],
    });
    assert.deepEqual(splitCommand(['exec', 'b1', '--', 'ls'], GLOBAL_OPTIONS, depth), { command: ['exec'], args: ['b1', '--', 'ls'] });
  });
});

describe('value helpers', () => {
  it('intOption accepts whole numbers only', () => {
    assert.equal(intOption(parseArgs(['--cpus', '4'], specs), 'cpus', 1), 4);
    assert.equal(intOption(parseArgs([], specs), 'cpus'), undefined);
    for (const bad of ['0', '-1', '1.5', 'two', '']) assert.throws(() => intOption(parseArgs(['--cpus', bad], specs), 'cpus', 1), UsageError);
  });

  it('keyValues splits on the first = and K- removes only when allowed', () => {
    assert.deepEqual(keyValues(['A=1', 'URL=a=b', 'E='], 'env'), { A: '1', URL: 'a=b', E: '' });
    assert.deepEqual(keyValues(['A-'], 'env', true), { A: null });
    assert.throws(() => keyValues(['A-'], 'env'), UsageError);
    assert.throws(() => keyValues(['=1'], 'env'), UsageError);
    assert.equal(keyValues([], 'env'), undefined);
  });

  it('applyEdits merges into the current map', () => {
    assert.deepEqual(applyEdits({ A: '1', B: '2' }, { B: null, C: '3' }), { A: '1', C: '3' });
  });

  it('tagFilter turns k=v into the API k:v', () => {
    assert.deepEqual(tagFilter(['team:web', 'env=prod']), ['team:web', 'env:prod']);
    assert.throws(() => tagFilter(['nocolon']), UsageError);
  });

  it('exitStatus keeps 0-255 and maps anything else to 1', () => {
    assert.deepEqual([0, 7, 255, 256, -1, null].map(exitStatus), [0, 7, 255, 1, 1, 1]);
  });

  it('parseFormat and table', () => {
    assert.equal(parseFormat(undefined), 'table');
    assert.throws(() => parseFormat('xml'), UsageError);
    assert.equal(table([{ a: 'x', b: null }], [{ header: 'LONG', get: (r) => r.a }, { header: 'B', get: (r) => r.b }]), 'LONG  B\nx     -\n');
  });
});
