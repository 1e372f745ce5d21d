import type { Box, BoxStatus } from '../../../../shared/schemas/box';
import { ApiError } from '../../../../shared/errors';
import type { ContainerEngine } from '../../engine/container-engine';
import type { BoxRow } from '../box-row';
import type { BoxOperation } from '../box-state-machine';
import type { BoxUsage } from './usage';

interface Options {
  signal?: AbortSignal;
  reason?: string;
  onlyIf?: () => boolean;
}

/** What pause and wake use of the box service (boxes/service.ts): its queue, its checks, its status writes. */
export interface SleepingBoxes {
  find(project: string, name: string): BoxRow;
  requireRunning(project: string, name: string, op?: BoxOperation): BoxRow;
  transition(
    project: string,
    name: string,
    op: BoxOperation,
    settled: BoxStatus,
    options: Options,
    move: (row: BoxRow) => Promise<BoxRow>,
  ): Promise<Box>;
  engineStep(row: BoxRow, step: () => Promise<void>): Promise<void>;
  setStatus(row: BoxRow, status: BoxStatus, reason?: string | null): BoxRow;
}

/** Thaws a paused box: its processes carry on where they were. The caller holds its lock. */
export async function thaw(
  engine: ContainerEngine,
  boxes: Pick<SleepingBoxes, 'engineStep' | 'setStatus'>,
  row: BoxRow,
): Promise<BoxRow> {
  await boxes.engineStep(row, () => engine.unpauseContainer(row.container_id!));
  return boxes.setStatus(row, 'running');
}

/**
 * Pause and wake. A paused box's processes are frozen by the engine (no CPU, memory and
 * connections kept); whatever needs it running wakes it first (`awake`), waiting in its queue
 * behind other operations (bounded as they are), so a client never sees the pause.
 */
export class BoxSleep {
  /** Told before a box's container is paused, and waited on (the preview proxy's edge stops routing to it). */
  private readonly beforePauses: ((boxId: string) => Promise<void>)[] = [];

  constructor(
    private readonly boxes: SleepingBoxes,
    private readonly engine: ContainerEngine,
    private readonly usage: BoxUsage,
  ) {}

  /** `listener` is awaited before each pause of a box's container. */
  beforePause(listener: (boxId: string) => Promise<void>): void {
    this.beforePauses.push(listener);
  }

  /** Pauses a running box (idempotent on a paused one). */
  pause(project: string, name: string, options: Options = {}): Promise<Box> {
    return this.boxes.transition(project, name, 'pause', 'paused', options, async (row) => {
      await Promise.all(this.beforePauses.map((listener) => listener(row.id)));
      // Used meanwhile (an exec that began while the listeners were awaited): an idle pause is off.
      if (options.onlyIf && !options.onlyIf()) return row;
      await this.boxes.engineStep(row, () => this.engine.pauseContainer(row.container_id!));
      return this.boxes.setStatus(row, 'paused', options.reason ?? null);
    });
  }

  /** Wakes the box if it is paused; a box that is not (stopped meanwhile, say) is left as it is. */
  async wake(row: Pick<BoxRow, 'project' | 'name' | 'status'>): Promise<void> {
    if (row.status !== 'paused') return;
    await this.boxes
      .transition(row.project, row.name, 'wake', 'running', {}, (paused) => thaw(this.engine, this.boxes, paused))
      .catch((err: unknown) => {
        // A box that is no longer paused (stopped, deleted meanwhile): the caller's own check says so.
        if (!(err instanceof ApiError && err.status === 409 && !/busy/.test(err.message))) throw err;
      });
  }

  /** The box, used now and woken if it was paused; then the caller's own check (`op`). */
  async awake(project: string, name: string, op: BoxOperation = 'exec'): Promise<BoxRow> {
    const row = this.boxes.find(project, name);
    this.usage.touch(row.id);
    await this.wake(row);
    return this.boxes.requireRunning(project, name, op);
  }
}
