import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject, Timestamp } from './common';

export const EGRESS_PROTOCOLS = ['tcp', 'udp', 'icmp', 'ip'] as const;

export const EgressRecord = ClosedObject({
  id: Type.Integer({
    description: "The record's number in the box's log (each box counts from 1 since the core started).",
  }),
  at: Timestamp,
  host: Type.String({
    description: 'Where the box went: the name it asked the resolver for where the answer was seen, else the address.',
  }),
  address: Type.Union([Type.String(), Type.Null()], {
    description: 'The IPv4 address, where the packet filter saw it (null for a record only a proxy made).',
  }),
  port: Type.Integer({ minimum: 0, maximum: 65535, description: '0 where the protocol has none (ICMP).' }),
  protocol: Type.Union(
    EGRESS_PROTOCOLS.map((p) => Type.Literal(p)),
    { description: 'tcp, udp, icmp, or ip for any other.' },
  ),
  allowed: Type.Boolean({ description: 'false: the policy refused it.' }),
  bytes: Type.Integer({
    minimum: 0,
    description: 'Bytes both ways, once the connection ended (an allowed one is recorded when it ends); 0 if denied.',
  }),
});
export type EgressRecord = Static<typeof EgressRecord>;

export const EgressLog = ClosedObject({
  items: Type.Array(EgressRecord, { description: 'Oldest first; at most the last 500 of the box.' }),
});
export type EgressLog = Static<typeof EgressLog>;

export const EgressQuery = ClosedObject({
  after: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Only records whose id is greater (what a follower has not seen).' }),
  ),
});
export type EgressQuery = Static<typeof EgressQuery>;

export interface EgressEvents {
  /** New records in a box's egress log (at most one event a second per box): `last` is the newest id. */
  'box.egress': { box: string; id: string; last: number };
  /** The policy refused a connection of the box; `suppressed` denials were not sent as events since the last one. */
  'box.egress.denied': { box: string; id: string; record: EgressRecord; suppressed: number };
}

export const EGRESS_EVENTS = {
  'box.egress': "new records in a box's egress log (at most one event a second per box; data.last is the newest id)",
  'box.egress.denied':
    "the box's network policy refused a connection (rate-limited per box: data.suppressed counts those not sent)",
} as const satisfies Record<keyof EgressEvents, string>;
