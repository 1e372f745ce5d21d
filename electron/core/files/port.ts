import type { FileService } from './service';

/** What `box up` (up/) asks of files: a folder made in a box, its parents too. */
export type FilesPort = Pick<FileService, 'mkdir'>;
