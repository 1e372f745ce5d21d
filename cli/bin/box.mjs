#!/usr/bin/env node
// Registers tsx so the CLI runs from its TypeScript sources without a build step.
import { register } from 'tsx/esm/api';

register();
await import('../box.ts');
