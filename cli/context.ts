import type { BoxdeskClient, FetchLike } from '../shared/client';
import type { Format } from './output';
import type { Connection, Platform } from '../sdk/src/connection';

/** What the process gives the CLI; tests pass their own streams and environment. */
export interface Io {
  /** Where questions are answered (`box rm` of a running box); process.stdin when not given. */
  stdin?: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  platform: Platform;
  fetch: FetchLike;
}

/** The global options, wherever on the line they were given. */
export interface GlobalOptions {
  url?: string;
  token?: string;
  profile?: string;
  project?: string;
  output?: string;
}

/** Everything a command needs to talk to the core and print, built from the global options. */
export interface Context {
  client: BoxdeskClient;
  connection: Connection;
  project: string;
  format: Format;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  /** The fetch the client uses, for streams the client has no method for (the event stream). */
  fetch: FetchLike;
}
