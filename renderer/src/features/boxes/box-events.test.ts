import { QueryClient } from '@tanstack/react-query';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BoxdeskEvent } from '../../../../shared/events';
import type { Box } from '../../../../shared/schemas/box';
import { applyEvents } from '../../api/event-rules';
import { boxKeys } from './box-cache';
import { boxEvents } from './box-events';
import { sampleBox } from './sample-box';

const box = sampleBox;

let seq = 0;
const event = (type: 'box.created' | 'box.status' | 'box.deleted', b: Box) =>
  ({ id: `1-${++seq}`, type, data: { box: b }, project: b.project, time: b.updated_at }) as BoxdeskEvent;

const names = (qc: QueryClient) => qc.getQueryData<Box[]>(boxKeys.list('p'))?.map((b) => `${b.name}:${b.status}`);

test('a batch of box events is applied in order: the list ends as the core is', () => {
  const qc = new QueryClient();
  qc.setQueryData(boxKeys.list('p'), [box('web', 'running'), box('db', 'running')]);
  applyEvents(
    qc,
    [boxEvents],
    [
      event('box.status', box('web', 'stopping')),
      event('box.created', box('api', 'creating')),
      event('box.status', box('web', 'stopped')),
      event('box.deleted', box('db', 'deleting')),
    ],
  );
  assert.deepEqual(names(qc), ['web:stopped', 'api:creating']);
  assert.equal(qc.getQueryData<Box>(boxKeys.detail('p', 'web'))?.status, 'stopped', 'the detail follows too');
  assert.equal(qc.getQueryData(boxKeys.detail('p', 'db')), undefined, 'a deleted box has no detail left');
});

test('a box deleted and made again under the same name within one batch stays in the list', () => {
  const qc = new QueryClient();
  qc.setQueryData(boxKeys.list('p'), [box('web', 'running')]);
  applyEvents(
    qc,
    [boxEvents],
    [event('box.deleted', box('web', 'deleting')), event('box.created', box('web', 'creating'))],
  );
  assert.deepEqual(names(qc), ['web:creating']);
});
