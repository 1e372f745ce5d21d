import type { Static } from '@sinclair/typebox';
import type { BoxdeskClient } from '../client';
import { readNdjson, type ByteStream } from '../calls/byte-stream';
import type { BuildLogLine } from '../schemas/builds';
import { tarArchive, textFile } from '../tar-writer';
import { ToolInputs, type ToolName } from './tool-inputs';

/** What a tool answers: its structured content, and the text a model reads. */
export interface ToolAnswer {
  structured: Record<string, unknown>;
  text: string;
}

type Args<N extends ToolName> = Static<(typeof ToolInputs)[N]>;

/** Bytes and text, from the platform (shared/ sees no TextDecoder or Buffer). */
export interface Codec {
  /** The text, or null when the bytes are not UTF-8. */
  utf8(bytes: Uint8Array): string | null;
  fromUtf8(text: string): Uint8Array;
  base64(bytes: Uint8Array): string;
  fromBase64(text: string): Uint8Array;
}

/** What a tool runs with: the client (with the caller's token) and the codec. */
export interface ToolContext {
  client: BoxdeskClient;
  codec: Codec;
  /** The project of a call that names none (`box -p` for `box mcp`); else "default". */
  defaultProject?: string;
}

export interface McpTool<N extends ToolName = ToolName> {
  name: N;
  description: string;
  readOnly?: boolean;
  destructive?: boolean;
  run(ctx: ToolContext, args: Args<N>, project: string): Promise<ToolAnswer>;
}

/** Files read_file hands over whole; bigger ones are for the files API or `box cp`. */
export const READ_FILE_LIMIT = 8 * 1024 * 1024;

const json = (value: object): ToolAnswer => ({
  structured: value as Record<string, unknown>,
  text: JSON.stringify(value, null, 2),
});

async function bodyBytes(body: unknown): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>) parts.push(chunk);
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return all;
}

/** Text when the bytes are UTF-8, else base64. */
function asContent(codec: Codec, bytes: Uint8Array): { content: string; encoding: 'utf8' | 'base64' } {
  const text = codec.utf8(bytes);
  return text === null ? { content: codec.base64(bytes), encoding: 'base64' } : { content: text, encoding: 'utf8' };
}

const tool = <N extends ToolName>(t: McpTool<N>): McpTool<N> => t;

/** The tools of `box mcp` and /v1/mcp (SPEC "Agents: MCP and the SDK"), each one or two REST calls. */
export const MCP_TOOLS = [
  tool({
    name: 'list_boxes',
    description: "List the project's boxes (filters: status, tag k:v; limit and cursor page).",
    readOnly: true,
    run: async ({ client: c }, { project: _p, tag, ...filter }, project) =>
      json(await c.listBoxes(project, { ...filter, tag: typeof tag === 'string' ? [tag] : tag })),
  }),
  tool({
    name: 'create_box',
    description:
      'Create a box (a sandbox container) from a base, or as a fork of a box or snapshot; it starts running. network limits what it may reach: {egress: "open" | "none" | "allowlist", allow: [IP, CIDR, host or *.domain, optionally :port], host: false}. secrets: [name] gives it placeholders of secrets the user added (GET /v1/secrets), whose values only the egress proxy puts into requests to their hosts.',
    run: async ({ client: c }, { project: _p, ...body }, project) => json(await c.createBox(project, body)),
  }),
  tool({
    name: 'delete_box',
    description: 'Delete a box, its root and its jobs.',
    destructive: true,
    run: async ({ client: c }, { box }, project) => {
      await c.deleteBox(project, box);
      return json({ deleted: box });
    },
  }),
  tool({
    name: 'stop_box',
    description: 'Stop a running box (its processes end; its files stay).',
    run: async ({ client: c }, { box }, project) => json(await c.stopBox(project, box)),
  }),
  tool({
    name: 'resume_box',
    description: 'Start a stopped box again.',
    run: async ({ client: c }, { box }, project) => json(await c.resumeBox(project, box)),
  }),
  tool({
    name: 'exec',
    description:
      'Run a command in a running box and answer its exit code, stdout, stderr and truncated. command is an argv array, or a string run with /bin/sh -c. With background: true it answers a job id at once: read it with job_output, stop it with kill_job.',
    run: async ({ client: c }, { box, command, background, project: _p, ...rest }, project) => {
      const argv = typeof command === 'string' ? ['/bin/sh', '-c', command] : command;
      if (background) return json(await c.startJob(project, box, { command: argv, ...rest }));
      const r = await c.exec(project, box, { command: argv, ...rest });
      const notes = [r.truncated && '(output truncated)', r.timed_out && '(timed out: killed)']
        .filter(Boolean)
        .join(' ');
      const text = `exit code ${r.exit_code}${notes ? ` ${notes}` : ''}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
      return { structured: r, text };
    },
  }),
  tool({
    name: 'job_output',
    description:
      "A background job's status and its output (stdout by default) from byte offset `from`; call again with next_from for more. Output is kept in a ring of about the newest MiB per stream.",
    readOnly: true,
    run: async ({ client: c, codec }, { box, job, stream = 'stdout', from = 0 }, project) => {
      const res = await c.jobOutput(project, box, job, { stream, from });
      const bytes = await bodyBytes(res.body);
      const offset = Number(res.headers.get('x-boxdesk-output-offset') ?? from);
      const state = await c.getJob(project, box, job);
      const { content: output, encoding } = asContent(codec, bytes);
      return {
        structured: { job: state, stream, offset, next_from: offset + bytes.length, encoding, output },
        text: `job ${job} ${state.status}${state.exit_code === null ? '' : ` (exit code ${state.exit_code})`}; ${stream} from byte ${offset}:\n${output}`,
      };
    },
  }),
  tool({
    name: 'kill_job',
    description: 'Kill a background job and every process it started.',
    run: async ({ client: c }, { box, job }, project) => json(await c.killJob(project, box, job)),
  }),
  tool({
    name: 'read_file',
    description: `Read a file in a box (running or stopped): its content as text, or base64 when it is not UTF-8. Up to ${READ_FILE_LIMIT / 1024 / 1024} MiB.`,
    readOnly: true,
    run: async ({ client: c, codec }, { box, path }, project) => {
      const stat = await c.statFile(project, box, path);
      if (stat.size > READ_FILE_LIMIT) {
        throw new Error(
          `${path} is ${stat.size} bytes, more than read_file hands over (${READ_FILE_LIMIT}); read it with GET …/files?path= or box cp`,
        );
      }
      const res = await c.readFile(project, box, path);
      const { content, encoding } = asContent(codec, await bodyBytes(res.body));
      return { structured: { path, size: stat.size, encoding, content }, text: content };
    },
  }),
  tool({
    name: 'write_file',
    description:
      'Write a file in a box (creating missing directories); content is text, or base64 with encoding "base64".',
    run: async ({ client: c, codec }, { box, path, mode, content, encoding = 'utf8' }, project) => {
      const bytes = encoding === 'base64' ? codec.fromBase64(content) : codec.fromUtf8(content);
      return json(await c.writeFile(project, box, path, bytes, { mode }));
    },
  }),
  tool({
    name: 'list_files',
    description: 'List a directory in a box.',
    readOnly: true,
    run: async ({ client: c }, { box, path }, project) => json(await c.listFiles(project, box, path)),
  }),
  tool({
    name: 'delete_file',
    description: 'Delete a file or (recursive: true) a directory in a box.',
    destructive: true,
    run: async ({ client: c }, { box, path, recursive }, project) => {
      await c.deleteFile(project, box, path, { recursive });
      return json({ deleted: path });
    },
  }),
  tool({
    name: 'snapshot_box',
    description: "Snapshot a box's root (running or stopped); restore_box and fork_box take its id.",
    run: async ({ client: c }, { box, name }, project) =>
      json(await c.createSnapshot(project, box, name ? { name } : {})),
  }),
  tool({
    name: 'restore_box',
    description: "Replace a box's root by a snapshot's (a running box restarts).",
    destructive: true,
    run: async ({ client: c }, { box, snapshot_id }, project) =>
      json(await c.restoreBox(project, box, { snapshot_id })),
  }),
  tool({
    name: 'fork_box',
    description: 'A new box whose root is a copy of a box (at this instant) or of a snapshot.',
    run: async ({ client: c }, { box, name }, project) => json(await c.forkBox(project, box, name)),
  }),
  tool({
    name: 'publish_box',
    description: "Publish a box's web server at a stable URL (auth: token by default, or public).",
    run: async ({ client: c }, { box, project: _p, ...body }, project) => json(await c.publishBox(project, box, body)),
  }),
  tool({
    name: 'get_logs',
    description: "The box's main process output (tail: the last N lines).",
    readOnly: true,
    run: async ({ client: c, codec }, { box, tail }, project) => {
      const res = await c.logs(project, box, { tail });
      const bytes = await bodyBytes(res.body);
      const logs = codec.utf8(bytes) ?? codec.base64(bytes);
      return { structured: { box, logs }, text: logs || `box ${box}'s main process has written nothing` };
    },
  }),
  tool({
    name: 'get_egress',
    description:
      "The box's recent connections (its egress log, the last 500): {items: [{id, at, host, address, port, protocol, allowed, bytes}]}. Denied attempts at once; allowed connections once they end, with their bytes. after: only records with a greater id.",
    readOnly: true,
    run: async ({ client: c }, { box, after }, project) => json(await c.boxEgress(project, box, after)),
  }),
  tool({
    name: 'create_base',
    description:
      'Build a base (what boxes start from) from a Dockerfile text and optional context files, with the engine; waits for the build and answers it with the last lines of its log. create_box takes the base by name.',
    run: async ({ client: c }, { name, dockerfile, files = {}, build_args, target }) => {
      const context = tarArchive([
        ...Object.entries(files).map(([path, text]) => textFile(path, text)),
        textFile('.boxdesk.Dockerfile', dockerfile),
      ]);
      const started = await c.buildBase(name, context, {
        dockerfile: '.boxdesk.Dockerfile',
        buildArgs: build_args,
        target,
      });
      const res = await c.baseBuildLog(name, started.id, { follow: true });
      const lines: string[] = [];
      for await (const line of readNdjson<BuildLogLine>(res.body as ByteStream)) {
        const text = line.step ? `Step ${line.step}` : (line.stream ?? '').trimEnd();
        if (text) lines.push(...text.split('\n'));
        if (lines.length > 60) lines.splice(0, lines.length - 30);
      }
      const build = await c.getBaseBuild(name, started.id);
      if (build.status !== 'done') throw new Error(build.error ?? `the build of base ${name} was ${build.status}`);
      const log = lines.slice(-30).join('\n');
      return { structured: { build, log }, text: `base ${name} built (${build.image})\n${log}` };
    },
  }),
] as const satisfies readonly McpTool<ToolName>[];

export { ToolInputs };
