import type { BuildService } from './service';

/** What `box up` (up/) asks of builds: start one, follow its log, read its end, cancel it. */
export type BuildsPort = Pick<BuildService, 'start' | 'log' | 'get' | 'cancel'>;
