import path from 'node:path/posix';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { ApiError } from '../../../shared/errors';

/** A lifecycle command as devcontainer.json writes it: a shell line, an argv, or named commands of either. */
export type DevCommand = string | string[] | Record<string, string | string[]>;

/** What `box up` makes a box from (the common subset of devcontainer.json, or the folder's Dockerfile). */
export interface UpPlan {
  /** Where it was read from (`.devcontainer/devcontainer.json`, `Dockerfile`, or null: the default base). */
  source: string | null;
  name?: string;
  /** An image the engine has: the box's base is built FROM it. */
  image?: string;
  /** A Dockerfile to build: paths relative to the folder's root, inside it. */
  build?: { context: string; dockerfile: string; args: string[] };
  environment: Record<string, string>;
  workspaceFolder: string;
  ports: number[];
  postCreateCommand?: DevCommand;
  postStartCommand?: DevCommand;
  /** What `box up` says it leaves aside, each with why. */
  notes: string[];
}

/** The properties `box up` honours; every other one found is named as ignored. */
const HONOURED = new Set([
  'name',
  'image',
  'build',
  'containerEnv',
  'remoteEnv',
  'workspaceFolder',
  'forwardPorts',
  'postCreateCommand',
  'postStartCommand',
]);
const WHY_IGNORED: Record<string, string> = {
  features: 'features are fetched from a registry',
  customizations: 'editor settings',
};

/** devcontainer.json is JSONC (comments, trailing commas): jsonc-parser, VS Code's own, reads it. */
export function parseJsonc(text: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) throw new Error(`${printParseErrorCode(first.error)} at offset ${first.offset}`);
  return value;
}

function stringMap(value: unknown, field: string): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${field} must be an object of strings`);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
}

/** What the plan reads of the uploaded folder: whether a file is there, and a small file's text. */
export interface FolderFiles {
  has(file: string): boolean;
  read(file: string): string;
}

/** A 400 about the folder's devcontainer.json or Dockerfile: nothing is made. */
function refused(message: string): ApiError {
  return new ApiError('invalid_body', message);
}

/** The plan for a folder: its devcontainer.json, else its Dockerfile, else the default base. */
export function planFor(folder: FolderFiles): UpPlan {
  const plan: UpPlan = { source: null, environment: {}, workspaceFolder: '/workspace', ports: [], notes: [] };
  const found = ['.devcontainer/devcontainer.json', '.devcontainer.json'].find((c) => folder.has(c));
  if (!found) {
    if (folder.has('Dockerfile')) {
      plan.source = 'Dockerfile';
      plan.build = { context: '', dockerfile: 'Dockerfile', args: [] };
    }
    return plan;
  }
  plan.source = found;
  let json: unknown;
  try {
    json = parseJsonc(folder.read(found));
  } catch (err) {
    throw refused(`${found} is not valid JSON (with comments): ${(err as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw refused(`${found} must hold one JSON object`);
  try {
    return readDevcontainer(json as Record<string, unknown>, path.dirname(found), plan, folder);
  } catch (err) {
    throw err instanceof ApiError ? err : refused(`${found}: ${(err as Error).message}`);
  }
}

/** A path of devcontainer.json (relative to its own folder) as a path from the root, or a throw when it leaves the folder. */
function inside(configDir: string, rel: string, field: string): string {
  const joined = path.normalize(path.join(configDir, rel));
  if (path.isAbsolute(rel) || joined === '..' || joined.startsWith('../'))
    throw new Error(`${field} "${rel}" is outside the folder; only the folder's own files are sent`);
  return joined === '.' ? '' : joined.replace(/\/$/, '');
}

function readDevcontainer(json: Record<string, unknown>, configDir: string, plan: UpPlan, folder: FolderFiles): UpPlan {
  const source = plan.source!;
  if (typeof json.name === 'string') plan.name = json.name;
  if (typeof json.image === 'string') {
    // It becomes a Dockerfile's FROM line: one image reference, nothing that could add a line.
    if (!/^[\w.\-/:@]+$/.test(json.image))
      throw new Error(`image "${json.image}" is not an image reference (registry/name:tag or name@digest)`);
    plan.image = json.image;
  }
  const build = json.build as { dockerfile?: string; context?: string; args?: Record<string, unknown> } | undefined;
  const dockerfile = build?.dockerfile ?? (json.dockerFile as string | undefined);
  if (dockerfile) {
    // Paths in devcontainer.json are relative to the file's own folder.
    const file = inside(configDir, dockerfile, 'build.dockerfile');
    if (!folder.has(file)) throw new Error(`build.dockerfile: there is no ${file} in the folder`);
    plan.build = {
      context: inside(configDir, build?.context ?? '.', 'build.context'),
      dockerfile: file,
      args: Object.entries(stringMap(build?.args, 'build.args')).map(([k, v]) => `${k}=${v}`),
    };
    delete plan.image;
  }
  plan.environment = { ...stringMap(json.containerEnv, 'containerEnv'), ...stringMap(json.remoteEnv, 'remoteEnv') };
  if (typeof json.workspaceFolder === 'string') {
    if (!/^\/[^\0]*$/.test(json.workspaceFolder) || json.workspaceFolder.split('/').includes('..'))
      throw new Error(`workspaceFolder "${json.workspaceFolder}" must be an absolute path in the box, without ".."`);
    plan.workspaceFolder = json.workspaceFolder.replace(/\/+$/, '') || '/';
  }
  if (json.forwardPorts !== undefined && !Array.isArray(json.forwardPorts))
    throw new Error('forwardPorts must be a list of port numbers');
  for (const port of (json.forwardPorts as unknown[] | undefined) ?? []) {
    if (typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535) {
      if (!plan.ports.includes(port)) plan.ports.push(port);
    } else plan.notes.push(`forwardPorts "${String(port)}" is left out: only port numbers of the box are published`);
  }
  plan.postCreateCommand = json.postCreateCommand as DevCommand | undefined;
  plan.postStartCommand = json.postStartCommand as DevCommand | undefined;
  const ignored = Object.keys(json).filter((k) => !HONOURED.has(k) && k !== 'dockerFile' && k !== '$schema');
  for (const key of ignored)
    plan.notes.push(`${source}: "${key}" is ignored${WHY_IGNORED[key] ? ` (${WHY_IGNORED[key]})` : ''}`);
  return plan;
}

/** Each command of a lifecycle property as an argv, with its label (named commands run one after another). */
export function commandsOf(command: DevCommand | undefined): { label: string; argv: string[] }[] {
  if (command === undefined) return [];
  const one = (c: string | string[]) => (typeof c === 'string' ? ['sh', '-c', c] : c);
  if (typeof command === 'string' || Array.isArray(command)) return [{ label: '', argv: one(command) }];
  return Object.entries(command).map(([label, c]) => ({ label, argv: one(c) }));
}
