// A process holding the store that dies (SIGKILL, as kill -9) in the middle of one operation:
// test-support/storage.ts crashDuring() runs it. Argument: JSON {dataDir, instanceId, driver, op, step, ids}.
import { openStorage } from './storage';

const { dataDir, instanceId, driver, op, step, ids } = JSON.parse(process.argv[2]!) as {
  dataDir: string;
  instanceId: string;
  driver: 'btrfs' | 'loop-btrfs' | 'reflink' | 'copy';
  op: 'snapshot' | 'clone' | 'delete' | 'restore';
  step: 'intent' | 'done';
  ids: string[];
};

const { storage } = openStorage(dataDir, instanceId, driver, {
  onStep: (at, what) => {
    if (at === step && what === op) process.kill(process.pid, 'SIGKILL');
  },
});
await storage.start();
const [a, b] = ids as [string, string];
if (op === 'snapshot') await storage.snapshot(a, { owner: 'test', id: b });
if (op === 'clone') await storage.clone(a, { owner: 'test', id: b });
if (op === 'delete') await storage.delete(a);
if (op === 'restore') await storage.restore(a, b);
console.error(`the ${op} finished without reaching ${step}`);
process.exit(1);
