import type { QueryClient } from '@tanstack/react-query';
import type { BoxdeskEvent, EventType } from '../../../shared/events';

export type EventOf<T extends EventType> = Extract<BoxdeskEvent, { type: T }>;

/**
 * How a feature keeps its queries current: for each event type it handles,
 * what the event patches or invalidates (its own query keys). A feature
 * module declares these; the event stream knows no feature.
 */
export type EventRules = { [T in EventType]?: (qc: QueryClient, event: EventOf<T>) => void };

/** Applies a batch of events, in order, through every feature's rules. */
export function applyEvents(qc: QueryClient, rules: readonly EventRules[], events: readonly BoxdeskEvent[]): void {
  for (const event of events)
    for (const r of rules) {
      const rule = r[event.type] as ((qc: QueryClient, event: BoxdeskEvent) => void) | undefined;
      rule?.(qc, event);
    }
}
