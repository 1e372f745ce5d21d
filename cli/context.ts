import type { BoxdeskClient } from '../shared/client';
import type { OptionSpecs, ParsedArgs } from './args';
import type { Format } from './output';
import type { Connection } from './profile';

export interface Context {
  client: BoxdeskClient;
  connection: Connection;
  project: string;
  format: Format;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

export interface Command {
  /** One or two words: "create", "base ls". */
  name: string;
  usage: string;
  summary: string;
  options?: OptionSpecs;
  /** After this many positionals the rest of the line is passed through (exec's command). */
  maxPositionals?: number;
  /** Returns the exit code; undefined means 0. */
  run(ctx: Context, args: ParsedArgs): Promise<number | void>;
}
