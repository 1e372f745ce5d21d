import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject } from './common';
import type { Box } from './box';

export const URL_AUTH_MODES = ['public', 'token'] as const;

/** A hostname a published box also answers to, e.g. "myapp.test" (mapped to 127.0.0.1 by the user). */
export const PublishedDomain = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern: '^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$',
  description:
    'A hostname (letters, digits, hyphens, dots). Not an IP address, not "localhost", not a "{box}--{project}.localhost" name.',
});

export const PublishRequest = ClosedObject({
  port: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 65535,
      description: "The box's port to publish (sets the box's port); omitted: the box's current port.",
    }),
  ),
  ports: Type.Optional(
    Type.Array(Type.Integer({ minimum: 1, maximum: 65535 }), {
      maxItems: 16,
      description:
        "More of the box's ports to publish, each at its own URL http://{port}.{box}--{project}.localhost:{proxy_port} (port_urls), with the same auth; omitted: unchanged (none on first publish), [] removes them.",
    }),
  ),
  domains: Type.Optional(
    Type.Array(PublishedDomain, {
      maxItems: 32,
      description: 'Extra hostnames routed to the box; omitted: unchanged (none on first publish).',
    }),
  ),
  auth: Type.Optional(
    Type.Union(
      URL_AUTH_MODES.map((m) => Type.Literal(m)),
      {
        description:
          '"public": anyone on this machine; "token": a token with read access to the project (default on first publish; omitted later: unchanged).',
      },
    ),
  ),
});
export type PublishRequest = Static<typeof PublishRequest>;

export const SignInQuery = ClosedObject({
  port: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 65535, description: "One of the box's other published ports (port_urls)." }),
  ),
});
export type SignInQuery = Static<typeof SignInQuery>;

/** A link that opens a published URL in a browser and signs that browser in, without a token in it. */
export const SignInLink = ClosedObject({
  url: Type.String({
    description:
      'The URL to open: with auth "token", the published URL with a one-time `boxdesk_code` that the proxy exchanges for its session cookie (then redirects to the URL without it); with auth "public", the published URL itself.',
  }),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the code stops working (60 s after it was made; it also works only once); null without one.',
  }),
});
export type SignInLink = Static<typeof SignInLink>;

/** The events of publishing on GET /v1/events, by kind (merged into shared/events.ts). */
export interface PublishingEvents {
  'box.published': { box: Box };
  'box.unpublished': { box: Box };
}

export const PUBLISHING_EVENTS = {
  'box.published': 'a box was published, or its published port, domains or access changed',
  'box.unpublished': "a box's URL and domains were removed",
} as const satisfies Record<keyof PublishingEvents, string>;
