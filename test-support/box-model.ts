import assert from 'node:assert/strict';
import fc from 'fast-check';
import { api, type CoreProcess } from './core-process';
import { docker, waitFor } from './docker';
import { boxRows } from './reliability';

/** What a sequence of box operations should have left: the model the real core is checked against. */
export interface ModelBox {
  status: 'running' | 'stopped';
  environment: Record<string, string>;
  tags: Record<string, string>;
  /** The content of /marker in the box's root, null when never written. */
  marker: string | null;
}

export interface Model {
  boxes: Map<string, ModelBox>;
  /** Snapshot id → the marker the box had when it was taken (snapshot routes only). */
  snapshots: Map<string, { box: string; marker: string | null; environment: Record<string, string> }>;
}

/** The system under test for one sequence: a core (replaced on a restart) and the project the sequence owns. */
export interface Real {
  core: CoreProcess;
  project: string;
  /** Kills the core with SIGKILL and starts it again on the same data dir. */
  restart(): Promise<void>;
  kills: number;
  steps: number;
}

export const TRANSIENT = new Set(['creating', 'stopping', 'resuming', 'deleting']);

export interface ApiBox {
  id: string;
  name: string;
  status: string;
  status_reason: string | null;
  environment: Record<string, string>;
  tags: Record<string, string>;
}

export function boxesPath(real: Real, name?: string): string {
  return `/v1/projects/${real.project}/boxes${name ? `/${name}` : ''}`;
}

export async function listBoxes(real: Real): Promise<ApiBox[]> {
  const res = await api(real.core, 'GET', `${boxesPath(real)}?limit=500`);
  assert.equal(res.status, 200, `list: ${await res.clone().text()}`);
  return ((await res.json()) as { items: ApiBox[] }).items;
}

/** Waits until no box of the project is mid-transition (the reconciler finishes what a crash interrupted). */
export async function settled(real: Real, ms = 30_000): Promise<ApiBox[]> {
  let last: ApiBox[] = [];
  try {
    return await waitFor(
      async () => {
        last = await listBoxes(real);
        return last.every((b) => !TRANSIENT.has(b.status)) ? last : null;
      },
      ms,
      'boxes to settle',
    );
  } catch {
    throw new Error(
      `boxes stuck in a transient status after ${ms} ms: ${JSON.stringify(last.map((b) => [b.name, b.status, b.status_reason]))}`,
    );
  }
}

/**
 * The model, the API (list and get), the engine's labelled containers and the SQLite rows
 * all agree on which boxes exist, their status, their container, environment and tags;
 * and the core has no container without a box anywhere (no orphans).
 */
export async function assertAgreement(model: Model, real: Real, instance: string): Promise<void> {
  const listed = await settled(real);
  const want = [...model.boxes]
    .map(([name, b]) => ({ name, status: b.status, environment: b.environment, tags: b.tags }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const got = listed
    .map((b) => ({ name: b.name, status: b.status, environment: b.environment, tags: b.tags }))
    .sort((a, b) => a.name.localeCompare(b.name));
  assert.deepEqual(got, want, 'the API list agrees with the model');
  for (const b of listed) {
    const res = await api(real.core, 'GET', boxesPath(real, b.name));
    assert.equal(res.status, 200);
    const one = (await res.json()) as ApiBox;
    assert.equal(one.id, b.id);
    assert.equal(one.status, b.status, `GET ${b.name} agrees with the list`);
  }
  const rows = boxRows(real.core.dataDir).filter((r) => r.project === real.project);
  assert.deepEqual(
    rows.map((r) => ({
      id: r.id,
      name: r.name,
      status: r.status,
      environment: JSON.parse(r.environment) as unknown,
      tags: JSON.parse(r.tags) as unknown,
    })),
    [...listed]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((b) => ({ id: b.id, name: b.name, status: b.status, environment: b.environment, tags: b.tags })),
    'the SQLite rows agree with the API',
  );
  // Snapshots, where the core has them: the project's list holds exactly the model's.
  const snaps = await api(real.core, 'GET', `/v1/projects/${real.project}/snapshots`);
  if (snaps.status === 200) {
    const ids = ((await snaps.json()) as { items: { id: string }[] }).items.map((s) => s.id).sort();
    assert.deepEqual(ids, [...model.snapshots.keys()].sort(), 'the snapshot list agrees with the model');
  }
  // Helpers (the store's, a volume's) carry the instance with an empty box id: they are no box's.
  const containers = (
    await docker.listContainers({ all: true, filters: { label: [`boxdesk.instance=${instance}`] } })
  ).filter((c) => c.Labels['boxdesk.id']);
  const allRows = boxRows(real.core.dataDir);
  const rowIds = new Set(allRows.map((r) => r.id));
  const orphans = containers.filter((c) => !rowIds.has(c.Labels['boxdesk.id'] ?? ''));
  assert.deepEqual(
    orphans.map((c) => c.Names[0]),
    [],
    'no container of this core is without its box',
  );
  for (const row of rows) {
    const mine = containers.filter((c) => c.Labels['boxdesk.id'] === row.id);
    assert.equal(mine.length, 1, `box ${row.name} has exactly one container (has ${mine.length})`);
    assert.equal(mine[0]!.Id, row.container_id, `box ${row.name}'s row names its container`);
    assert.equal(
      mine[0]!.State === 'running',
      row.status === 'running',
      `box ${row.name} is ${row.status} and its container ${mine[0]!.State}`,
    );
  }
}

/** Sequences, steps and kills run so far, for a test's closing line. */
export interface ModelFigures {
  sequences: number;
  steps: number;
  kills: number;
}

/** Runs one sequence of commands from an empty model against `real`, adding what it did to `figures`. */
export async function runSequence(
  real: Real,
  commands: Iterable<fc.AsyncCommand<Model, Real>>,
  figures: ModelFigures,
): Promise<void> {
  try {
    await fc.asyncModelRun(
      () => ({ model: { boxes: new Map(), snapshots: new Map() } satisfies Model, real }),
      commands,
    );
  } finally {
    figures.sequences++;
    figures.steps += real.steps;
    figures.kills += real.kills;
  }
}
