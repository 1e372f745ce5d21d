import { defineModule } from '../module';
import { IDEMPOTENCY_MIGRATIONS } from './migrations';
import type { IdempotencyPort } from './port';
import { IdempotencyStore } from './store';

/** Idempotency-Key answers, remembered 24 h per token (the routes that take the header use its port). */
export const idempotency = defineModule({
  name: 'idempotency',
  needs: [],
  migrations: IDEMPOTENCY_MIGRATIONS,
  create: (ctx): IdempotencyPort => new IdempotencyStore(ctx.db),
});
