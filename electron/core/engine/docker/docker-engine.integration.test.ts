import { TEST_IMAGE } from '../../../../test-support/core-process';
import { runEngineContract } from '../engine-contract';
import { DockerEngine } from './docker-engine';

// The driver against the real engine: the same contract the memory engine passes (engine-contract.ts).
runEngineContract('docker', () => ({ engine: new DockerEngine(), image: TEST_IMAGE }));
