import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { filesUrl, getFile, putFile } from '../file-calls';
import { rateResult, type ScenarioResult } from '../report';
import { containerOfBox } from '../raw-engine';
import { alternate, progress, summarize } from '../stats';
import { createBox, rssMiB, type BenchContext, type BenchScenario } from './context';

const TARGET_RATIO = 1.0;
const TARGET_RSS_MIB = 64;
const SIZE = 200 * 1024 * 1024;
const RUNS = 3;
const BOX = 'xfer';
const DOCKER = process.env.DOCKER_CLI ?? '/usr/bin/docker';
/**
 * The bench's client reads and writes its local file 1 MiB at a time: with Node's default 64 KiB
 * its own CPU (file reads, socket writes) was 1.0-1.3 s per 200 MiB upload, more than the core's,
 * on the same two CPUs. The docker CLI copies in Go.
 */
const CLIENT_CHUNK = 1024 * 1024;

const CURL = process.env.CURL ?? '/usr/bin/curl';

const mibPerSecond = (bytes: number, ms: number) => bytes / 1024 / 1024 / (ms / 1000);

/** Runs a tool to its end (`input` on its stdin); rejects with its stderr when it fails. */
function runTool(tool: string, args: string[], input = ''): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(tool)} ${args[0]} exited ${code}: ${err}`)),
    );
    child.stdin.end(input);
  });
}

const dockerCp = (from: string, to: string) => runTool(DOCKER, ['cp', from, to]);

/**
 * curl against the files route, as a script would call it: the token goes in its config on stdin,
 * never on its command line (which other users of the machine can read).
 */
const curl = (ctx: BenchContext, args: string[]) =>
  runTool(
    CURL,
    ['--config', '-', '--silent', '--show-error', '--fail', ...args],
    `header = "authorization: Bearer ${ctx.core.token}"\n`,
  );

/** PUT of a local file with curl (--upload-file: streamed, with its Content-Length). */
const curlUpload = (ctx: BenchContext, local: string, boxPath: string) =>
  curl(ctx, [
    '--upload-file',
    local,
    '--header',
    'content-type: application/octet-stream',
    '--output',
    '/dev/null',
    filesUrl(ctx.core, ctx.project, BOX, boxPath).href,
  ]);

/** GET of a file into a local file with curl. */
const curlDownload = (ctx: BenchContext, boxPath: string, local: string) =>
  curl(ctx, ['--output', local, filesUrl(ctx.core, ctx.project, BOX, boxPath).href]);

/** PUT of a local file, streamed from disk by Node's HTTP client (as the SDK's would). */
const coreUpload = (ctx: BenchContext, local: string, boxPath: string): Promise<void> =>
  putFile(
    ctx.core.token,
    filesUrl(ctx.core, ctx.project, BOX, boxPath),
    fs.createReadStream(local, { highWaterMark: CLIENT_CHUNK }),
    fs.statSync(local).size,
  );

/** GET of a file into a local file. */
const coreDownload = (ctx: BenchContext, boxPath: string, local: string): Promise<void> =>
  getFile(ctx.core.token, filesUrl(ctx.core, ctx.project, BOX, boxPath), (res) =>
    pipeline(res, fs.createWriteStream(local, { highWaterMark: CLIENT_CHUNK })),
  );

/** A file of SIZE random-ish bytes; returns its sha256. */
function writeSource(file: string): string {
  const block = crypto.randomBytes(4 * 1024 * 1024);
  const fd = fs.openSync(file, 'w');
  for (let i = 0; i < SIZE / block.length; i++)
    fs.writeSync(
      fd,
      block.map((b) => b ^ i),
    );
  fs.closeSync(fd);
  return sha256(file);
}

const sha256 = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

type Runs = { ours: number[]; raw: number[] };

/** MiB/s of one transfer of the file. */
async function timed(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return mibPerSecond(SIZE, performance.now() - t0);
}

/**
 * Uploads then downloads with curl through the core and with docker cp, alternating, then with
 * Node's HTTP client through the core: MiB/s of each run. Both native clients copy in C or Go;
 * the Node client's own CPU is a share of its figure on these two CPUs (reported beside, in MiB/s).
 */
async function transfers(ctx: BenchContext, containerId: string, dir: string, source: string) {
  const last = { ours: 0, raw: 0 };
  const report = (what: string) => (i: number) =>
    progress(
      `  ${what} ${i + 1}/${RUNS}: core (curl) ${last.ours.toFixed(0)} MiB/s, docker cp ${last.raw.toFixed(0)} MiB/s`,
    );
  const upOurs = () => timed(() => curlUpload(ctx, source, '/tmp/core.bin'));
  const upRaw = () => timed(() => dockerCp(source, `${containerId}:/tmp/raw.bin`));
  progress(`file transfer: 1 warm-up + ${RUNS} uploads each, alternating core and docker cp`);
  await alternate(1, upOurs, upRaw);
  const up: Runs = await alternate(
    RUNS,
    async () => (last.ours = await upOurs()),
    async () => (last.raw = await upRaw()),
    report('upload'),
  );
  progress(`file transfer: ${RUNS} downloads each, alternating`);
  const down: Runs = await alternate(
    RUNS,
    async () => (last.ours = await timed(() => curlDownload(ctx, '/tmp/core.bin', path.join(dir, 'core.out')))),
    async () => (last.raw = await timed(() => dockerCp(`${containerId}:/tmp/raw.bin`, path.join(dir, 'raw.out')))),
    report('download'),
  );
  progress(`file transfer: ${RUNS} uploads and downloads with Node's HTTP client`);
  const node = { up: [] as number[], down: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    node.up.push(await timed(() => coreUpload(ctx, source, '/tmp/node.bin')));
    node.down.push(await timed(() => coreDownload(ctx, '/tmp/node.bin', path.join(dir, 'node.out'))));
  }
  return { up, down, nodeUp: node.up, nodeDown: node.down };
}

const rate = (name: string, runs: Runs, client: string): ScenarioResult =>
  rateResult(name, runs, 'ours/docker cp median', TARGET_RATIO, [
    `${SIZE / 1024 / 1024} MiB random file, local disk to box and back, ${client}; docker cp ${DOCKER}; cells are median (min–max) of ${RUNS}`,
  ]);

/** The core's side with Node's client, in MiB/s alone: its runs did not alternate with docker cp's. */
function nodeRate(name: string, runs: number[]): ScenarioResult {
  const ours = summarize(runs);
  return {
    ...{ name, unit: 'MiB/s', n: ours.n, ours, raw: null, ratioKind: '', ratio: null },
    ...{ target: 'reported', verdict: '—' as const },
    notes: [
      `the same file with Node's HTTP client (as the SDK's), after the curl and docker cp runs; median (min–max) of ${RUNS}`,
    ],
    cells: { ours: `${ours.p50.toFixed(0)} (${ours.min.toFixed(0)}–${ours.max.toFixed(0)})` },
  };
}

/** Upload and download of a 200 MiB file through the files API against `docker cp` in the same run, with the core's RSS sampled throughout. */
async function run(ctx: BenchContext): Promise<ScenarioResult[]> {
  await createBox(ctx, BOX);
  const containerId = await containerOfBox(ctx.project, BOX);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-bench-files-'));
  const source = path.join(dir, 'source.bin');
  const pid = ctx.core.child.pid!;
  try {
    progress(`file transfer: writing a ${SIZE / 1024 / 1024} MiB random file`);
    const digest = writeSource(source);
    const baseline = rssMiB(pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 20);
    const runs = await transfers(ctx, containerId, dir, source).finally(() => clearInterval(sampler));
    for (const out of ['core.out', 'node.out'])
      if (sha256(path.join(dir, out)) !== digest)
        throw new Error(`the downloaded file (${out}) differs from the uploaded one`);
    const growth = peak - baseline;
    return [
      rate('file upload 200 MiB', runs.up, `curl ${CURL}`),
      rate('file download 200 MiB', runs.down, `curl ${CURL}`),
      nodeRate('file upload 200 MiB, Node client', runs.nodeUp),
      nodeRate('file download 200 MiB, Node client', runs.nodeDown),
      {
        name: 'core rss during file transfers',
        unit: 'MiB',
        n: RUNS * 2 + 1,
        ours: null,
        raw: null,
        ratioKind: '',
        ratio: null,
        target: `growth < ${TARGET_RSS_MIB}`,
        verdict: growth < TARGET_RSS_MIB ? 'PASS' : 'MISS',
        notes: ['VmRSS of the core process sampled every 20 ms through every upload and download'],
        cells: { ours: `baseline ${baseline.toFixed(0)}, peak ${peak.toFixed(0)} (+${growth.toFixed(0)})` },
        extra: { baseline_mib: baseline, peak_mib: peak },
      },
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const fileTransfer: BenchScenario = { name: 'file transfer', run };
