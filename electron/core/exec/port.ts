import type { ExecService } from './service';

/** What `box up` (up/) asks of exec: a command run to its end, its output as it comes. */
export type ExecPort = Pick<ExecService, 'run'>;
