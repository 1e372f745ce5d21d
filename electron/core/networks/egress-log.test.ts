import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BoxdeskEvent } from '../../../shared/events';
import { EventBus } from '../events/event-bus';
import { EGRESS_LOG_LIMIT, EgressLog } from './egress-log';
import { parseWatchLine } from './egress-watch';

function logWith(now: { ms: number }) {
  const bus = new EventBus();
  const events: BoxdeskEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const boxes = new Map([['box_1', { project: 'p', name: 'web' }]]);
  const log = new EgressLog({ bus, boxOf: (id) => boxes.get(id) ?? null, now: () => now.ms });
  return { log, events, boxes };
}

test(`a box's log keeps its last ${EGRESS_LOG_LIMIT} records, in order; ?after gives the newer ones`, () => {
  const { log } = logWith({ ms: 0 });
  for (let i = 0; i < EGRESS_LOG_LIMIT + 20; i++)
    log.record('box_1', { host: 'example.com', port: 1000 + i, allowed: true, bytes: i });
  const items = log.list('box_1');
  assert.equal(items.length, EGRESS_LOG_LIMIT);
  assert.equal(items[0]!.id, 21);
  assert.equal(items.at(-1)!.id, EGRESS_LOG_LIMIT + 20);
  assert.deepEqual(
    log.list('box_1', EGRESS_LOG_LIMIT + 18).map((r) => r.port),
    [1000 + EGRESS_LOG_LIMIT + 18, 1000 + EGRESS_LOG_LIMIT + 19],
  );
  log.forget('box_1');
  assert.deepEqual(log.list('box_1'), []);
  log.dispose();
});

test('a record of a box that is gone is dropped; one from a proxy has a host name and no address', () => {
  const { log } = logWith({ ms: 0 });
  assert.equal(log.record('box_gone', { host: 'x', port: 1, allowed: false, bytes: 0 }), null);
  const record = log.record('box_1', { host: 'api.example.com', port: 443, allowed: true, bytes: 1234.4 });
  assert.deepEqual(
    { ...record, at: '' },
    {
      id: 1,
      at: '',
      host: 'api.example.com',
      address: null,
      port: 443,
      protocol: 'tcp',
      allowed: true,
      bytes: 1234,
    },
  );
  log.dispose();
});

test('denials are events at a bounded rate per box; those held back are counted in the next', () => {
  const now = { ms: 1_000_000 };
  const { log, events } = logWith(now);
  const denied = () => events.filter((e) => e.type === 'box.egress.denied');
  for (let i = 0; i < 50; i++) log.record('box_1', { host: '10.0.0.1', port: i, allowed: false, bytes: 0 });
  assert.equal(denied().length, 5, 'a burst of 5');
  assert.equal(log.list('box_1').length, 50, 'every denial is still in the log');
  now.ms += 2_000;
  log.record('box_1', { host: '10.0.0.1', port: 99, allowed: false, bytes: 0 });
  const last = denied().at(-1)!;
  assert.equal(last.type === 'box.egress.denied' && last.data.suppressed, 45);
  assert.equal(last.project, 'p');
  log.dispose();
});

test('new records are one box.egress event at once, then at most one a second', async () => {
  const now = { ms: Date.now() };
  const { log, events } = logWith(now);
  const news = () => events.filter((e) => e.type === 'box.egress');
  log.record('box_1', { host: 'a', port: 1, allowed: true, bytes: 1 });
  log.record('box_1', { host: 'a', port: 2, allowed: true, bytes: 1 });
  assert.equal(news().length, 1);
  now.ms += 1_000;
  await new Promise((r) => setTimeout(r, 1_050));
  assert.equal(news().length, 2);
  const last = news().at(-1)!;
  assert.equal(last.type === 'box.egress' && last.data.last, 2);
  log.dispose();
});

test("the helper's lines: records, ready, errors; anything else is ignored", () => {
  assert.deepEqual(parseWatchLine('{"ready":true}'), { ready: true });
  assert.deepEqual(parseWatchLine('{"error":"no"}'), { error: 'no' });
  assert.equal(parseWatchLine('not json'), null);
  assert.equal(parseWatchLine('null'), null);
  assert.equal(parseWatchLine('42'), null);
  assert.equal(parseWatchLine('{"at":"x"}'), null);
  const line = '{"at":1700000000000,"protocol":"udp","address":"10.1.2.3","port":53,"allowed":false,"bytes":0}';
  assert.deepEqual(parseWatchLine(line), {
    at: new Date(1700000000000),
    protocol: 'udp',
    address: '10.1.2.3',
    host: '10.1.2.3',
    port: 53,
    allowed: false,
    bytes: 0,
  });
  const named = parseWatchLine(
    '{"at":1,"protocol":"gre","address":"1.1.1.1","port":0,"host":"one.one","allowed":true,"bytes":9}',
  );
  assert.equal(named && 'host' in named && named.host, 'one.one');
  assert.equal(named && 'protocol' in named && named.protocol, 'ip');
});
