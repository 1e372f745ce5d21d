import { runEngineContract } from '../engine-contract';
import { MemoryEngine } from './memory-engine';

const IMAGE = 'boxdesk-test/busybox:1';

runEngineContract('memory', () => {
  const engine = new MemoryEngine({ statsIntervalMs: 20 });
  engine.addImage(IMAGE);
  return { engine, image: IMAGE };
});
