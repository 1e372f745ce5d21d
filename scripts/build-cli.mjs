// Bundles the `box` CLI into dist/cli/box.mjs with everything it imports, dependencies included:
// one file read at start instead of TypeScript compiled by tsx (about 0.6 s a command) or a few
// hundred files of node_modules resolved one by one. What only some commands need (the MCP
// server, WebSockets, tar, YAML, spinners and bars) is imported lazily and so is a chunk of its
// own, read when such a command runs. cli/bin/box.mjs runs the bundle while it is fresh, the
// sources through tsx otherwise; `npm run pack:cli` makes a package of it that needs nothing else.
import { bundle } from './bundle.mjs';

await bundle({ entry: 'cli/box.ts', dir: 'cli', name: 'box', selfContained: true, banner: '#!/usr/bin/env node\n' });
