import { cli } from './main';

await cli();
