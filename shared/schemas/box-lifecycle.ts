import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject, Timestamp } from './common';

const Seconds = (what: string) =>
  Type.Union([Type.Integer({ minimum: 1, maximum: 2147483647 }), Type.Null()], {
    description: `${what}; null (the default): never.`,
  });

const LIFECYCLE_FIELDS = {
  auto_pause_s: Seconds('Idle seconds after which the box is paused (frozen, woken by the next use)'),
  auto_stop_s: Seconds('Idle seconds after which the box is stopped'),
  auto_delete_s: Seconds('Seconds a box stays stopped (by anyone) before it is deleted'),
  expires_at: Type.Union([Timestamp, Type.Null()], {
    description: 'When the box is deleted, whatever its state; null (the default): never.',
  }),
};

/** A box's clocks, as the representation shows them (each null: never). */
export const Lifecycle = Type.Object(LIFECYCLE_FIELDS);
export type Lifecycle = Static<typeof Lifecycle>;

/** The clocks in a create or update body: given fields replace the stored ones, null clears one, omitted keeps it. */
export const LifecycleInput = Type.Partial(ClosedObject(LIFECYCLE_FIELDS), {
  additionalProperties: false,
  description:
    'Idle means no API call on the box (exec, an open console or exec socket, jobs, files, logs follow) and no request through the proxy to its URL.',
});
export type LifecycleInput = Static<typeof LifecycleInput>;

export const NO_LIFECYCLE: Lifecycle = { auto_pause_s: null, auto_stop_s: null, auto_delete_s: null, expires_at: null };

export const LIFECYCLE_ACTIONS = ['pause', 'stop', 'delete'] as const;
export type LifecycleAction = (typeof LIFECYCLE_ACTIONS)[number];
export const LIFECYCLE_REASONS = ['idle', 'expired', 'auto_delete'] as const;
export type LifecycleReason = (typeof LIFECYCLE_REASONS)[number];

/** What the clocks will do to the box next, and when (as things stand: any use of the box moves an idle one). */
export const NextChange = Type.Union(
  [
    Type.Object({
      action: Type.Union(LIFECYCLE_ACTIONS.map((a) => Type.Literal(a))),
      reason: Type.Union(LIFECYCLE_REASONS.map((r) => Type.Literal(r))),
      at: Timestamp,
    }),
    Type.Null(),
  ],
  {
    description: "The clocks' next change of the box: pause|stop (idle) or delete (auto_delete, expired); null: none.",
  },
);
export type NextChange = Static<typeof NextChange>;
