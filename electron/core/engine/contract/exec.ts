import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isEngineError, run, type Contract } from './harness';

/** Exec: output split by stream, exit codes, stdin, cwd, environment, a TTY, and commands that cannot run. */
export function execCases(c: () => Contract): void {
  test('exec hands up stdout and stderr apart, and the exit code', async () => {
    const r = await run(c().engine, c().running, ['sh', '-c', 'echo out; echo err >&2; exit 7']);
    assert.deepEqual([r.stdout, r.stderr, r.state.exitCode, r.state.running], ['out\n', 'err\n', 7, false]);
    // Podman forgets an exec's process id once it ended (docs/engines.md).
    assert.ok(c().engine.name === 'podman' ? r.state.pid === 0 : r.state.pid > 0);
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
    // Podman says it on stderr, and exits 127 for what is not there, as a shell does (docs/engines.md).
    const podman = engine.name === 'podman';
    const cases: [string[], RegExp, number][] = [
      [
        ['/no/such/binary'],
        /"\/no\/such\/binary": stat \/no\/such\/binary: no such file or directory/,
        podman ? 127 : 126,
      ],
      [['no-such-command'], /"no-such-command": executable file not found in \$PATH/, podman ? 127 : 126],
      [['/etc/passwd'], /"\/etc\/passwd": permission denied/, 126],
    ];
    for (const [command, message, code] of cases) {
      const r = await run(engine, running, command);
      assert.equal(r.state.exitCode, code, command[0]);
      assert.equal(r.state.pid, 0);
      assert.match(podman ? r.stderr : r.stdout, message);
      if (podman) assert.match(r.stderr, /^Error: \w+: exec failed: /);
      else assert.match(r.stdout, /^OCI runtime exec failed: .*\r\n$/);
    }
    const cwd = await run(engine, running, ['pwd'], { cwd: '/no/such/dir' });
    assert.equal(cwd.state.exitCode, podman ? 127 : 126);
    assert.match(podman ? cwd.stderr : cwd.stdout, /chdir to cwd \("\/no\/such\/dir"\)/);
    const shell = await run(engine, running, ['sh', '-c', 'no-such-command']);
    assert.deepEqual([shell.state.exitCode, shell.stderr], [127, 'sh: no-such-command: not found\n']);
  });

  test('exec: not before start (running false, no exit code), refused in a container that does not run (conflict)', async () => {
    const { engine, running, stopped } = c();
    const id = await engine.createExec(running, { command: ['true'], env: {}, tty: false, stdin: false });
    // Podman reads 0 for an exec not started yet (docs/engines.md).
    const exitCode = engine.name === 'podman' ? 0 : null;
    assert.deepEqual(await engine.inspectExec(id), { running: false, exitCode, pid: 0 });
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
