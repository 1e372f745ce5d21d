// Bundles the headless core (electron/core/serve.ts) into dist/core/serve.mjs, its dependencies
// with it: `npm start`'s headless core, `box serve` and the tests' core processes run the bundle
// while it is fresh (scripts/fresh-bundle.mjs), and the sources through tsx otherwise. Loading it
// takes a tenth of the CPU that tsx compiling and resolving some four hundred source files takes
// (about 1.5 s a start here); with its dependencies inside (not resolved and loaded from
// node_modules file by file) a start took 0.73 s of CPU against 1.03 s, and was listening in about
// 1.2 s against 1.8 s. Left out: the native modules (better-sqlite3, and ssh2's optional
// cpu-features, with ssh2 itself, which docker-modem loads for ssh:// engines). dockerode's
// BuildKit session reads .proto files beside its sources; the core builds with the classic
// builder and never opens one. One file, no chunks: the agent's files are found beside it.
import { bundle } from './bundle.mjs';

await bundle({
  entry: 'electron/core/serve.ts',
  dir: 'core',
  name: 'serve',
  selfContained: true,
  split: false,
  external: ['better-sqlite3', 'ssh2', 'cpu-features'],
});
