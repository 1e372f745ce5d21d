import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { spreadCells, type ScenarioResult } from '../report';
import { containerOfBox } from '../raw-engine';
import { alternate, progress, summarize } from '../stats';
import { createBox, rssMiB, type BenchContext, type BenchScenario } from './context';

const TARGET_RATIO = 0.9;
const TARGET_RSS_MIB = 64;
const SIZE = 200 * 1024 * 1024;
const RUNS = 3;
const BOX = 'xfer';
const DOCKER = process.env.DOCKER_CLI ?? '/usr/bin/docker';

const mibPerSecond = (bytes: number, ms: number) => bytes / 1024 / 1024 / (ms / 1000);

function dockerCp(from: string, to: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(DOCKER, ['cp', from, to], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`docker cp ${from} ${to} exited ${code}: ${err}`)),
    );
  });
}

function filesUrl(ctx: BenchContext, boxPath: string): URL {
  return new URL(`${ctx.core.url}/v1/projects/${ctx.project}/boxes/${BOX}/files?path=${encodeURIComponent(boxPath)}`);
}

/** PUT of a local file with its Content-Length, streamed from disk. */
async function coreUpload(ctx: BenchContext, local: string, boxPath: string): Promise<void> {
  const u = filesUrl(ctx, boxPath);
  const headers = {
    authorization: `Bearer ${ctx.core.token}`,
    'content-type': 'application/octet-stream',
    'content-length': String(fs.statSync(local).size),
  };
  await new Promise<void>((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method: 'PUT', headers },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`upload: HTTP ${res.statusCode} ${body}`)),
        );
      },
    );
    req.on('error', reject);
    fs.createReadStream(local).on('error', reject).pipe(req);
  });
}

/** GET of a file into a local file. */
async function coreDownload(ctx: BenchContext, boxPath: string, local: string): Promise<void> {
  const u = filesUrl(ctx, boxPath);
  await new Promise<void>((resolve, reject) => {
    http
      .get(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname + u.search,
          headers: { authorization: `Bearer ${ctx.core.token}` },
        },
        (res) => {
          if (res.statusCode !== 200) return reject(new Error(`download: HTTP ${res.statusCode}`));
          pipeline(res, fs.createWriteStream(local)).then(resolve, reject);
        },
      )
      .on('error', reject);
  });
}

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

/** Uploads then downloads through the core and with docker cp, alternating: MiB/s of each run. */
async function transfers(ctx: BenchContext, containerId: string, dir: string, source: string) {
  const time = async (fn: () => Promise<void>) => {
    const t0 = performance.now();
    await fn();
    return mibPerSecond(SIZE, performance.now() - t0);
  };
  const last = { ours: 0, raw: 0 };
  const report = (what: string) => (i: number) =>
    progress(`  ${what} ${i + 1}/${RUNS}: core ${last.ours.toFixed(0)} MiB/s, docker cp ${last.raw.toFixed(0)} MiB/s`);
  const upOurs = () => time(() => coreUpload(ctx, source, '/tmp/core.bin'));
  const upRaw = () => time(() => dockerCp(source, `${containerId}:/tmp/raw.bin`));
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
    async () => (last.ours = await time(() => coreDownload(ctx, '/tmp/core.bin', path.join(dir, 'core.out')))),
    async () => (last.raw = await time(() => dockerCp(`${containerId}:/tmp/raw.bin`, path.join(dir, 'raw.out')))),
    report('download'),
  );
  return { up, down };
}

function rateResult(name: string, runs: Runs): ScenarioResult {
  const o = summarize(runs.ours);
  const r = summarize(runs.raw);
  const ratio = o.p50 / r.p50;
  return {
    name,
    unit: 'MiB/s',
    n: RUNS,
    ours: o,
    raw: r,
    ratioKind: 'ours/docker cp median',
    ratio,
    target: `≥ ${TARGET_RATIO}`,
    verdict: ratio >= TARGET_RATIO ? 'PASS' : 'MISS',
    notes: [
      `${SIZE / 1024 / 1024} MiB random file, local disk to box and back; docker cp ${DOCKER}; cells are median (min–max) of ${RUNS}`,
    ],
    cells: spreadCells(o, r),
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
    const { up, down } = await transfers(ctx, containerId, dir, source).finally(() => clearInterval(sampler));
    if (sha256(path.join(dir, 'core.out')) !== digest)
      throw new Error('the downloaded file differs from the uploaded one');
    const growth = peak - baseline;
    return [
      rateResult('file upload 200 MiB', up),
      rateResult('file download 200 MiB', down),
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
