import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ContainerEvent, ContainerStats } from '../container-engine';
import { eventually, isEngineError, readAll, run, type Contract } from './harness';

/** Containers: states, labels, start/stop/pause/wait/remove, exits, logs and events. */
export function lifecycleCases(c: () => Contract): void {
  stateCases(c);
  exitCases(c);
  controlCases(c);
}

/** A container made, refused or missing. */
function stateCases(c: () => Contract): void {
  test('a created container: its state, its labels, and list by every label given', async () => {
    const { engine, labels, stopped } = c();
    const state = await engine.inspectContainer(stopped);
    assert.deepEqual(
      { running: state?.running, state: state?.state, exitCode: state?.exitCode },
      { running: false, state: 'created', exitCode: 0 },
    );
    assert.equal(state?.labels['contract.role'], 'stopped');
    assert.equal(await engine.waitContainer(stopped), 0, 'waiting on a container that never ran ends at once');
    const listed = await engine.listContainers({ ...labels, 'contract.role': 'stopped' });
    assert.deepEqual(
      listed.map((x) => x.id),
      [stopped],
    );
    assert.equal(listed[0]?.running, false);
    assert.deepEqual(await engine.listContainers({ ...labels, 'contract.role': 'nothing-has-this' }), []);
    assert.equal(
      (await engine.listContainers({ ...labels, 'contract.empty': '' })).length,
      2,
      'an empty value matches',
    );
  });

  test('create refuses a missing image (not_found) and a name in use (conflict)', async () => {
    const { create, tag } = c();
    await assert.rejects(create('noimage', ['true'], { image: `${tag}/no-such-image:1` }), isEngineError('not_found'));
    await assert.rejects(create('stopped', ['true']), isEngineError('conflict'));
  });

  test('calls on a missing container are not_found; inspect is null; remove is not an error', async () => {
    const { engine, tag } = c();
    const missing = `${tag}-missing`;
    assert.equal(await engine.inspectContainer(missing), null);
    await engine.removeContainer(missing);
    for (const call of [
      () => engine.startContainer(missing),
      () => engine.stopContainer(missing, 1),
      () => engine.pauseContainer(missing),
      () => engine.unpauseContainer(missing),
      () => engine.commitContainer(missing, {}),
      () => engine.logs(missing, { follow: false }),
      () => engine.createExec(missing, { command: ['true'], env: {}, tty: false, stdin: false }),
      () => engine.statPath(missing, '/tmp'),
      () => engine.updateContainer(missing, { cpus: 1, ramMb: 64, pidsLimit: 64 }),
    ])
      await assert.rejects(call(), isEngineError('not_found'));
    await assert.rejects(engine.inspectExec('no-such-exec'), isEngineError('not_found'));
  });
}

/** A main process exiting, or failing to run; pause. */
function exitCases(c: () => Contract): void {
  test('a main process that exits: its code by wait and inspect, its stdout and stderr in the logs (tail counts lines), kept across a restart', async () => {
    const { engine, create } = c();
    const id = await create('exit3', ['sh', '-c', 'echo one; echo two >&2; exit 3']);
    await engine.startContainer(id);
    const followed = await readAll(await engine.logs(id, { follow: true }));
    assert.equal(await engine.waitContainer(id), 3);
    const state = await engine.inspectContainer(id);
    assert.deepEqual(
      { running: state?.running, state: state?.state, exitCode: state?.exitCode },
      { running: false, state: 'exited', exitCode: 3 },
    );
    // Two pipes: the engine keeps each line whole, in whichever order they came.
    const lines = (text: string) => text.split('\n').filter(Boolean).sort();
    assert.deepEqual(lines(followed), ['one', 'two'], 'follow ends when the main process does');
    assert.deepEqual(lines(await readAll(await engine.logs(id, { follow: false }))), ['one', 'two']);
    assert.equal(lines(await readAll(await engine.logs(id, { follow: false, tail: 1 }))).length, 1);
    assert.equal(await readAll(await engine.logs(id, { follow: false, tail: 0 })), '');
    await engine.stopContainer(id, 1); // stopped already: not an error
    await engine.startContainer(id);
    assert.equal(await engine.waitContainer(id), 3);
    assert.deepEqual(lines(await readAll(await engine.logs(id, { follow: false }))), ['one', 'one', 'two', 'two']);
  });

  test('a main process that cannot run: start succeeds, it exits 127 and the log says why', async () => {
    const { engine, create } = c();
    const id = await create('nobinary', ['/no/such/binary']);
    await engine.startContainer(id);
    // Podman's init (catatonit) reports it and exits 1 (docs/engines.md); boxes run the agent as PID 1, which says 127.
    const podman = engine.name === 'podman';
    assert.equal(await engine.waitContainer(id), podman ? 1 : 127);
    assert.match(
      await readAll(await engine.logs(id, { follow: false })),
      podman ? /failed to exec pid1: No such file or directory/ : /\/no\/such\/binary.*No such file or directory/,
    );
  });

  test('pause freezes (paused, still running; exec and a second pause refused; unpause twice fine); stop works from paused', async () => {
    const { engine, create, labels } = c();
    const id = await create('stop-plain', ['sleep', '600']);
    await engine.startContainer(id);
    await engine.pauseContainer(id);
    const state = await engine.inspectContainer(id);
    assert.deepEqual({ running: state?.running, state: state?.state }, { running: true, state: 'paused' });
    assert.equal((await engine.listContainers({ ...labels, 'contract.name': 'stop-plain' }))[0]?.running, true);
    await assert.rejects(
      engine.createExec(id, { command: ['true'], env: {}, tty: false, stdin: false }),
      (err: Error) => isEngineError('conflict')(err) && /paused/.test(err.message),
    );
    await assert.rejects(engine.pauseContainer(id), isEngineError('conflict'));
    await assert.rejects(engine.startContainer(id), (err: Error) => err.name === 'EngineError');
    await engine.unpauseContainer(id);
    await engine.unpauseContainer(id); // not paused: not an error
    assert.equal((await run(engine, id, ['echo', 'thawed'])).stdout, 'thawed\n');
    await engine.pauseContainer(id);
    await engine.stopContainer(id, 5);
    assert.deepEqual(
      [(await engine.inspectContainer(id))?.state, (await engine.inspectContainer(id))?.exitCode],
      ['exited', 143],
      'SIGTERM ends a process that does not handle it: 128 + 15',
    );
    await assert.rejects(engine.pauseContainer(id), isEngineError('conflict'));
    await assert.rejects(
      engine.createExec(id, { command: ['true'], env: {}, tty: false, stdin: false }),
      isEngineError('conflict'),
    );
  });
}

/** Stop, events and stats. */
function controlCases(c: () => Contract): void {
  test('stop: a process that ignores SIGTERM is killed after the grace period (137), and the container’s execs with it', async () => {
    const { engine, create } = c();
    const id = await create('stop-stubborn', ['sh', '-c', "trap '' TERM; while :; do sleep 1; done"]);
    await engine.startContainer(id);
    const execId = await engine.createExec(id, { command: ['sleep', '30'], env: {}, tty: false, stdin: false });
    const exec = await engine.startExec(execId, { tty: false, stdin: false });
    await engine.stopContainer(id, 1);
    assert.equal((await engine.inspectContainer(id))?.exitCode, 137);
    await readAll(exec.stdout);
    await eventually(async () => !(await engine.inspectExec(execId)).running, 'the exec ended');
    assert.equal((await engine.inspectExec(execId)).exitCode, 137);
  });

  test('events: the domain kinds in order, for containers with the labels only; a removal kills a running container', async () => {
    const { engine, create, labels, running } = c();
    const seen: ContainerEvent[] = [];
    const watch = await engine.watchEvents(
      { ...labels, 'contract.name': 'events' },
      (e) => seen.push(e),
      () => undefined,
    );
    const id = await create('events', ['sleep', '600']);
    await engine.startContainer(id);
    await engine.pauseContainer(running); // another container's events are not this watch's
    await engine.unpauseContainer(running);
    await engine.pauseContainer(id);
    await engine.unpauseContainer(id);
    await engine.removeContainer(id);
    assert.equal(await engine.inspectContainer(id), null);
    const kinds = () => seen.map((e) => `${e.kind}${e.exitCode !== undefined ? `:${e.exitCode}` : ''}`);
    await eventually(() => kinds().includes('removed'), `removed among ${kinds().join(',')}`);
    await watch.dispose();
    assert.deepEqual(kinds(), ['started', 'paused', 'unpaused', 'exited:137', 'removed']);
    assert.ok(seen.every((e) => e.containerId === id && e.labels['contract.name'] === 'events'));
  });

  test('stats of a running container (memory in use, the limit updateContainer set, pids), a stream until aborted; zeros when stopped', async () => {
    const { engine, running, stopped } = c();
    await engine.updateContainer(running, { cpus: 1, ramMb: 96, pidsLimit: 128 });
    await assert.rejects(
      engine.updateContainer(running, { cpus: 1, ramMb: 1, pidsLimit: 128 }),
      isEngineError('invalid'),
    );
    await assert.rejects(
      engine.updateContainer(running, { cpus: 4096, ramMb: 96, pidsLimit: 128 }),
      isEngineError('invalid'),
    );
    const controller = new AbortController();
    const samples: ContainerStats[] = [];
    await engine.streamStats(running, (s) => samples.push(s) === 2 && controller.abort(), controller.signal);
    assert.equal(samples.length, 2);
    const sample = samples[1]!;
    assert.ok(sample.memory_bytes > 0 && sample.pids >= 1, JSON.stringify(sample));
    assert.equal(sample.memory_limit_bytes, 96 * 1024 * 1024);
    const idle = await engine.stats(stopped);
    assert.deepEqual([idle.memory_bytes, idle.pids], [0, 0]);
  });
}
