// Preloaded into each test file's process by scripts/run-tests.mjs when BOXDESK_TEST_CPU=FILE is
// set: at exit it appends the process's CPU seconds, and those of the children it waited for
// (its cores, CLI runs and what they in turn waited for), as one JSON line to FILE. Not in it: the
// engine's work for the file (dockerd, containerd, the containers) and Chromium's renderers, which
// its zygote forks apart and which are never waited for (docs/testing.md).
import fs from 'node:fs';

const out = process.env.BOXDESK_TEST_CPU;
const ticks = 100; // USER_HZ on Linux

process.on('exit', () => {
  try {
    // /proc/self/stat: the name may hold spaces, so count fields after its closing parenthesis.
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    const [user, sys, childUser, childSys] = [f[11], f[12], f[13], f[14]].map((t) => t / ticks);
    const line = { file: process.argv[1], own: user + sys, children: childUser + childSys };
    fs.appendFileSync(out, JSON.stringify(line) + '\n');
  } catch {
    // Not Linux, or the file cannot be written: the figures are a measurement aid, never a failure.
  }
});
