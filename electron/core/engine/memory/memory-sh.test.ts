import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';
import { run } from '../contract/harness';
import { MemoryEngine } from './memory-engine';
import { programFile } from './memory-programs';

// What the memory engine runs beyond the contract: the sh subset tests rely on (and its
// refusal of the rest), programs a test defines, and the memory limit.

const IMAGE = 'boxdesk-test/busybox:1';
const engine = new MemoryEngine();
let box: string;

/** Puts a file naming program `name` at /usr/bin/NAME in the box. */
async function install(name: string): Promise<void> {
  const pack = tar.pack();
  pack.entry({ name, mode: 0o755 }, programFile(name).data);
  pack.finalize();
  await engine.putArchive(box, '/usr/bin', pack as unknown as Readable);
}

const sh = (script: string, env: Record<string, string> = {}) => run(engine, box, ['sh', '-c', script], { env });

before(async () => {
  engine.addImage(IMAGE);
  box = await engine.createContainer({
    name: 'sh-test',
    image: IMAGE,
    command: ['sleep', 'infinity'],
    hostname: 'sh-test',
    env: {},
    labels: {},
    limits: { cpus: 1, ramMb: 64, pidsLimit: 64 },
    storageGb: null,
    graceSeconds: 1,
  });
  await engine.startContainer(box);
});
after(() => engine.dispose());

test('quoting, expansion and field splitting', async () => {
  const r = await sh(`A='x  y'; echo $A "$A" '$A' \${B:-dflt} "\${A}z" $# $0`, { B: '' });
  assert.equal(r.stdout, 'x y x  y $A dflt x  yz 0 sh\n');
  assert.equal((await run(engine, box, ['sh', '-c', 'echo "$1-$2" "$@"', 'name', 'a', 'b c'])).stdout, 'a-b c a b c\n');
});

test('lists, and/or, negation, if/elif/else, while and until loops, groups', async () => {
  const r = await sh(
    'false || echo or; true && echo and; ! false && echo not; if false; then echo no; elif true; then echo elif; else echo else; fi; ' +
      'touch /tmp/loop; while [ -f /tmp/loop ]; do rm /tmp/loop; echo once; done; until true; do echo never; done; { echo grouped; }',
  );
  assert.equal(r.stdout, 'or\nand\nnot\nelif\nonce\ngrouped\n');
});

test('redirections: to files (truncate and append), between streams, from files, /dev/null; a pipe', async () => {
  const r = await sh('echo one > /tmp/f; echo two >> /tmp/f; cat < /tmp/f; echo err 2>/dev/null >&2; echo to-err >&2');
  assert.equal(r.stdout, 'one\ntwo\n');
  assert.equal(r.stderr, 'to-err\n');
  const piped = await sh('echo piped | cat; exit 3');
  assert.deepEqual([piped.stdout, piped.state.exitCode], ['piped\n', 3]);
});

test('anything outside the subset is a syntax error (exit 2) naming what is not supported', async () => {
  for (const [script, what] of [
    ['echo $(date)', 'command substitution'],
    ['echo `date`', 'command substitution'],
    ['echo $((1+1))', 'arithmetic'],
    ['for i in 1 2; do echo $i; done', 'for'],
    ['cat <<EOF\nx\nEOF', 'here-documents'],
    ['echo ${x##*/}', '\\$\\{x##\\*/\\}'],
  ]) {
    const r = await sh(script!);
    assert.equal(r.state.exitCode, 2, script);
    assert.match(r.stderr, new RegExp(`^sh: syntax error: ${what}.*not supported by the memory engine's sh`), script);
  }
});

test('trap and wait: a trapped signal ends a wait at once and runs its action; kill and $! reach a background job', async () => {
  const r = await sh("trap 'echo caught; exit 5' USR1; sleep 30 & kill -USR1 $$; wait $!; echo never");
  assert.deepEqual([r.stdout, r.state.exitCode], ['caught\n', 5]);
  const bg = await sh('sleep 30 & kill $!; wait $!; echo $?');
  assert.equal(bg.stdout, '143\n');
});

test('a program a test defines runs where an image names it, with its arguments, environment and stdin', async () => {
  engine.defineProgram('shout', async (ctx) => {
    let input = '';
    for await (const chunk of ctx.stdin) input += String(chunk);
    ctx.stdout.write(`${ctx.argv.slice(1).join(',')} ${ctx.env.WHO} ${input.toUpperCase()}`);
    return 9;
  });
  await install('shout');
  const r = await run(engine, box, ['shout', 'a', 'b'], { env: { WHO: 'me' }, input: 'quiet' });
  assert.deepEqual([r.stdout, r.state.exitCode], ['a,b me QUIET', 9]);
  assert.equal((await sh('command -v shout; command -v nothing-here || echo none')).stdout, '/usr/bin/shout\nnone\n');
});

test('a process past the memory limit is OOM-killed (137), the container notes it and sends oom', async () => {
  engine.defineProgram('grow', async (ctx) => {
    for (;;) {
      ctx.allocate(8 * 1024 * 1024);
      await ctx.sleep(1);
    }
  });
  const seen: string[] = [];
  const watch = await engine.watchEvents(
    {},
    (e) => seen.push(e.kind),
    () => undefined,
  );
  await install('grow');
  const r = await run(engine, box, ['grow']);
  assert.equal(r.state.exitCode, 137);
  assert.equal((await engine.inspectContainer(box))?.oomKilled, true);
  assert.equal((await engine.inspectContainer(box))?.running, true, 'the main process lived through it');
  await new Promise((resolve) => setImmediate(resolve));
  await watch.dispose();
  assert.ok(seen.includes('oom'), seen.join(','));
});
