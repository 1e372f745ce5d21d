import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isEngineError, run, type Contract } from './harness';

/** Exec: output split by stream, exit codes, stdin, cwd, environment, a TTY, and commands that cannot run. */
export function execCases(c: () => Contract): void {
  test('exec hands up stdout and stderr apart, and the exit code', async () => {
    const r = await run(c().engine, c().running, ['sh', '-c', 'echo out; echo err >&2; exit 7']);
    assert.deepEqual([r.stdout, r.stderr, r.state.exitCode, r.state.running], ['out\n', 'err\n', 7, false]);
    assert.ok(r.state.pid > 0);
  });

  test('exec: stdin is read to its EOF; cwd and the environment (the container’s, then the exec’s) apply', async () => {
    const { engine, running } = c();
    assert.equal((await run(engine, running, ['cat'], { input: 'hello\nworld\n' })).stdout, 'hello\nworld\n');
    assert.equal((await run(engine, running, ['pwd'], { cwd: '/tmp' })).stdout, '/tmp\n');
    assert.equal((await run(engine, running, ['pwd'])).stdout, '/\n');
    const r = await run(engine, running, ['sh', '-c', 'echo $FROM_CONTAINER $SHARED $ONLY_EXEC $HOME'], {
      env: { SHARED: 'e', ONLY_EXEC: 'x' },
    });
    assert.equal(r.stdout, 'c e x /root\n');
  });

  test('exec with a TTY: everything on stdout, newlines as CR LF', async () => {
    const r = await run(c().engine, c().running, ['sh', '-c', 'echo out; echo err >&2; exit 2'], { tty: true });
    assert.deepEqual([r.stdout, r.stderr, r.state.exitCode], ['out\r\nerr\r\n', '', 2]);
  });

  test('a command that cannot start: exit 126 and the runtime’s reason on stdout (no pid); sh says 127 not found', async () => {
    const { engine, running } = c();
    const cases: [string[], RegExp][] = [
      [['/no/such/binary'], /"\/no\/such\/binary": stat \/no\/such\/binary: no such file or directory/],
      [['no-such-command'], /"no-such-command": executable file not found in \$PATH/],
      [['/etc/passwd'], /"\/etc\/passwd": permission denied/],
    ];
    for (const [command, message] of cases) {
      const r = await run(engine, running, command);
      assert.equal(r.state.exitCode, 126, command[0]);
      assert.equal(r.state.pid, 0);
      assert.match(r.stdout, message);
      assert.match(r.stdout, /^OCI runtime exec failed: .*\r\n$/);
    }
    const cwd = await run(engine, running, ['pwd'], { cwd: '/no/such/dir' });
    assert.equal(cwd.state.exitCode, 126);
    assert.match(cwd.stdout, /chdir to cwd \("\/no\/such\/dir"\)/);
    const shell = await run(engine, running, ['sh', '-c', 'no-such-command']);
    assert.deepEqual([shell.state.exitCode, shell.stderr], [127, 'sh: no-such-command: not found\n']);
  });

  test('exec: not before start (running false, no exit code), refused in a container that does not run (conflict)', async () => {
    const { engine, running, stopped } = c();
    const id = await engine.createExec(running, { command: ['true'], env: {}, tty: false, stdin: false });
    assert.deepEqual(await engine.inspectExec(id), { running: false, exitCode: null, pid: 0 });
    await assert.rejects(
      engine.createExec(stopped, { command: ['true'], env: {}, tty: false, stdin: false }),
      (err: Error) => isEngineError('conflict')(err) && /is not running/.test(err.message),
    );
  });

  test('a process killed by a signal exits 128 + its number', async () => {
    const r = await run(c().engine, c().running, ['sh', '-c', 'kill -9 $$']);
    assert.equal(r.state.exitCode, 137);
  });
}
