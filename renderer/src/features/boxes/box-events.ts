import type { QueryClient } from '@tanstack/react-query';
import type { Box } from '../../../../shared/schemas/box';
import type { EventRules } from '../../api/event-rules';
import { removeBoxes, upsertBoxes } from './box-cache';

const upsert = (qc: QueryClient, e: { data: { box: Box } }) => upsertBoxes(qc, [e.data.box]);

/** Every box event carries the box as it is now: it goes into the list and detail caches (the list is never polled). */
export const boxEvents: EventRules = {
  'box.created': upsert,
  'box.updated': upsert,
  'box.status': upsert,
  'box.published': upsert,
  'box.unpublished': upsert,
  'box.deleted': (qc, e) => removeBoxes(qc, [e.data.box]),
};
