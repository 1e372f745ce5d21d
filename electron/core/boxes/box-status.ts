import type { BoxStatus } from '../../../shared/schemas/box';
import type { EventBus } from '../events/event-bus';
import { now } from '../ids';
import { toBox, type BoxRow } from './box-row';
import type { BoxStore } from './store';

/** Writes a box's status (and reason) and tells the event stream. */
export class StatusWriter {
  constructor(
    private readonly store: BoxStore,
    private readonly bus: EventBus,
  ) {}

  set(row: BoxRow, status: BoxStatus, reason: string | null = null): BoxRow {
    const next = this.store.update(row.id, { status, status_reason: reason }, now());
    this.bus.emit('box.status', { box: toBox(next) }, next.project);
    return next;
  }
}
