// Bundles the headless core (electron/core/serve.ts) into dist/core/serve.mjs. Loading it takes a
// tenth of the CPU that tsx compiling and resolving some four hundred source files takes (about
// 1.5 s a start here): `npm start`'s headless core and the tests' core processes run the bundle
// while it is fresh (scripts/fresh-bundle.mjs), and the sources through tsx otherwise.
import { bundle } from './bundle.mjs';

await bundle({ entry: 'electron/core/serve.ts', dir: 'core', name: 'serve' });
