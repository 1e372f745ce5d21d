import type { IdempotencyStore } from './store';

export { answerIdempotently, IdempotencyHeaders } from './idempotent';

/** The remembered answers a route hands to `answerIdempotently`. */
export type IdempotencyPort = IdempotencyStore;
