import fs from 'node:fs';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import path from 'node:path';

/** A lifecycle command as devcontainer.json writes it: a shell line, an argv, or named commands of either. */
export type DevCommand = string | string[] | Record<string, string | string[]>;

/** What `box up` makes a box from (the common subset of devcontainer.json, or the folder's Dockerfile). */
export interface UpPlan {
  /** Where it was read from, for messages (`.devcontainer/devcontainer.json`, `Dockerfile`, or null: the default base). */
  source: string | null;
  name?: string;
  /** An image the engine has: the box's base is built FROM it. */
  image?: string;
  /** A Dockerfile to build: paths absolute on this machine. */
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

/** The plan for a folder: its devcontainer.json, else its Dockerfile, else the default base. */
export function planFor(dir: string): UpPlan {
  const plan: UpPlan = { source: null, environment: {}, workspaceFolder: '/workspace', ports: [], notes: [] };
  const candidates = [path.join('.devcontainer', 'devcontainer.json'), '.devcontainer.json'];
  const found = candidates.find((c) => fs.existsSync(path.join(dir, c)));
  if (!found) {
    if (fs.existsSync(path.join(dir, 'Dockerfile'))) {
      plan.source = 'Dockerfile';
      plan.build = { context: dir, dockerfile: path.join(dir, 'Dockerfile'), args: [] };
    }
    return plan;
  }
  plan.source = found;
  const file = path.join(dir, found);
  let json: Record<string, unknown>;
  try {
    json = parseJsonc(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`${found} is not valid JSON (with comments): ${(err as Error).message}`, { cause: err });
  }
  return readDevcontainer(json, path.dirname(file), plan);
}

function readDevcontainer(json: Record<string, unknown>, configDir: string, plan: UpPlan): UpPlan {
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
    const context = path.resolve(configDir, build?.context ?? '.');
    plan.build = {
      context,
      dockerfile: path.resolve(configDir, dockerfile),
      args: Object.entries(stringMap(build?.args, 'build.args')).map(([k, v]) => `${k}=${v}`),
    };
    delete plan.image;
  }
  plan.environment = { ...stringMap(json.containerEnv, 'containerEnv'), ...stringMap(json.remoteEnv, 'remoteEnv') };
  if (typeof json.workspaceFolder === 'string') plan.workspaceFolder = json.workspaceFolder;
  for (const port of (json.forwardPorts as unknown[] | undefined) ?? []) {
    if (typeof port === 'number' && Number.isInteger(port)) plan.ports.push(port);
    else plan.notes.push(`forwardPorts "${String(port)}" is left out: only port numbers of the box are published`);
  }
  if (plan.ports.length > 1)
    plan.notes.push(
      `forwardPorts: a box has one published URL, so port ${plan.ports[0]} is published and ${plan.ports.slice(1).join(', ')} not`,
    );
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
