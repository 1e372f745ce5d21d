import { baseRebuild } from './base-rebuild';
import { cliStartup } from './cli-startup';
import { consoleThroughput } from './console-throughput';
import type { BenchScenario } from './context';
import { egressProxy } from './egress-proxy';
import { execRoundTrip } from './exec-round-trip';
import { filesAgent } from './files-agent';
import { fileTransfer } from './file-transfer';
import { idleCost } from './idle-cost';
import { lifecycle } from './lifecycle';
import { mcpExec } from './mcp-exec';
import { publishFar } from './publish-far';
import { podmanEngine } from './podman';
import { publishProxy } from './publish-proxy';
import { rssUnderFlood } from './rss-flood';
import { serviceDeploy } from './service-deploy';
import { snapshotAndFork } from './snapshot-fork';
import { storageOps } from './storage';
import { uiEcho } from './ui-echo';
import { uiList } from './ui-list';
import { volumeCopies } from './volume-copies';
import { warmPool } from './warm-pool';
import { workspaceForks } from './workspace-forks';

/** Every scenario of `npm run bench`, in the order they run: a new one is its file and one line here. */
export const SCENARIOS: readonly BenchScenario[] = [
  lifecycle,
  warmPool,
  execRoundTrip,
  mcpExec,
  consoleThroughput,
  rssUnderFlood,
  fileTransfer,
  filesAgent,
  snapshotAndFork,
  uiList,
  uiEcho,
  publishProxy,
  egressProxy,
  publishFar,
  idleCost,
  volumeCopies,
  serviceDeploy,
  storageOps,
  workspaceForks,
  cliStartup,
  baseRebuild,
  podmanEngine,
];
