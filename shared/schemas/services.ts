import { Type, type Static } from '@sinclair/typebox';
import { DataMount, UrlSettings } from './box';
import { ClosedObject, DnsLabel, EnvironmentMap, PrefixedId, Timestamp, prefixedIdPattern } from './common';
import { Lifecycle } from './box-lifecycle';
import { URL_AUTH_MODES } from './publishing';

/**
 * A service's boxes are `{service}-blue` and `{service}-green`, so its name leaves room for
 * "-green" inside a 63-character DNS label.
 */
export const SERVICE_NAME_MAX = 57;
export const SERVICE_COLORS = ['blue', 'green'] as const;
export type ServiceColor = (typeof SERVICE_COLORS)[number];

export const DEPLOYMENT_STATUSES = [
  'pending',
  'starting',
  'healthy',
  'live',
  'failed',
  'rolled_back',
  'superseded',
] as const;
export const DeploymentStatus = Type.Union(
  DEPLOYMENT_STATUSES.map((s) => Type.Literal(s)),
  {
    description:
      "pending: queued behind the service's other deployments; starting: its box is being started and probed; healthy: passed its health check, the route is switching; live: serving the URL; failed: never went live (see reason); superseded: was live, replaced by a later deployment; rolled_back: was live, replaced by a rollback.",
  },
);
export type DeploymentStatus = Static<typeof DeploymentStatus>;

/** Deployments that have ended and will not change again. */
export const FINAL_DEPLOYMENT_STATUSES: readonly DeploymentStatus[] = ['live', 'failed', 'rolled_back', 'superseded'];

export const DEPLOYMENT_ID_PATTERN = prefixedIdPattern('dep');
export const DeploymentId = PrefixedId('dep', 'A deployment id');

export const ServiceName = Type.String({
  pattern: '^[a-z0-9]([a-z0-9-]{0,55}[a-z0-9])?$',
  maxLength: SERVICE_NAME_MAX,
  description: `A DNS label of at most ${SERVICE_NAME_MAX} characters (its boxes are {name}-blue and {name}-green).`,
});

export const Command = Type.Array(Type.String({ minLength: 1, maxLength: 32768, pattern: '^[^\\u0000]*$' }), {
  minItems: 1,
  maxItems: 256,
  description:
    'The box\'s main process, e.g. ["httpd", "-f", "-p", "8080", "-h", "/srv"]; it must keep running and serve `port`.',
});

export const HEALTH_CHECK_DEFAULTS = {
  path: '/',
  interval_s: 1,
  timeout_s: 2,
  healthy_threshold: 2,
  start_timeout_s: 60,
} as const;

export const HealthCheck = ClosedObject({
  path: Type.String({
    pattern: '^/[^\\s\\u0000]*$',
    maxLength: 2048,
    description: `The path probed with an HTTP GET on the service's port; a 2xx or 3xx answer is a success. Default "${HEALTH_CHECK_DEFAULTS.path}".`,
  }),
  interval_s: Type.Number({
    minimum: 0.1,
    maximum: 3600,
    description: `Seconds between probes. Default ${HEALTH_CHECK_DEFAULTS.interval_s}.`,
  }),
  timeout_s: Type.Number({
    minimum: 0.1,
    maximum: 600,
    description: `Seconds a probe may take. Default ${HEALTH_CHECK_DEFAULTS.timeout_s}.`,
  }),
  healthy_threshold: Type.Integer({
    minimum: 1,
    maximum: 100,
    description: `Successes in a row that make the new color healthy. Default ${HEALTH_CHECK_DEFAULTS.healthy_threshold}.`,
  }),
  start_timeout_s: Type.Number({
    minimum: 1,
    maximum: 3600,
    description: `Seconds the new color has to become healthy before the deployment fails. Default ${HEALTH_CHECK_DEFAULTS.start_timeout_s}.`,
  }),
});
export type HealthCheck = Static<typeof HealthCheck>;
export const HealthCheckInput = Type.Partial(HealthCheck, { additionalProperties: false });

export const Deployment = Type.Object({
  id: Type.String(),
  service: Type.String(),
  project: Type.String(),
  kind: Type.Union([Type.Literal('deploy'), Type.Literal('rollback')], {
    description: "rollback: a redeploy of the previous live deployment's spec.",
  }),
  status: DeploymentStatus,
  color: Type.Union(SERVICE_COLORS.map((c) => Type.Literal(c))),
  box: Type.String({ description: 'The box that runs it: {service}-{color}.' }),
  base: Type.String(),
  command: Type.Union([Command, Type.Null()]),
  environment: Type.Record(Type.String(), Type.String()),
  step: Type.Union([Type.String(), Type.Null()], {
    description: 'What it is doing now, in words (e.g. "health check 1/2 passed"); null once it has ended.',
  }),
  reason: Type.Union([Type.String(), Type.Null()], {
    description: "Why it failed: the probe's last answer and the box's last output lines.",
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
  live_at: Type.Union([Timestamp, Type.Null()], { description: 'When the route switched to it.' }),
});
export type Deployment = Static<typeof Deployment>;

export const Service = Type.Object({
  id: Type.String(),
  name: Type.String(),
  project: Type.String(),
  base: Type.String(),
  command: Type.Union([Command, Type.Null()]),
  port: Type.Integer(),
  environment: Type.Record(Type.String(), Type.String()),
  data_mounts: Type.Array(DataMount),
  health_check: HealthCheck,
  url: Type.String({
    description: 'http://{name}--{project}.localhost:{proxy_port}, served by the proxy from the live color.',
  }),
  url_settings: UrlSettings,
  lifecycle: Type.Optional(Lifecycle),
  active_deployment: Type.Union([Deployment, Type.Null()], {
    description: 'The live deployment; null while none is (before the first goes live, or when every one failed).',
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Service = Static<typeof Service>;

const AuthMode = Type.Union(
  URL_AUTH_MODES.map((m) => Type.Literal(m)),
  {
    description:
      '"public": anyone on this machine; "token" (default): a token that can read the project, as a bearer header or the cookie set after ?token= once.',
  },
);
const Port = Type.Integer({
  minimum: 1,
  maximum: 65535,
  description: 'The port the command serves HTTP on inside the box.',
});
const Base = Type.String({
  pattern: '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$',
  maxLength: 63,
  description: 'A base name; omitted at create: the default base.',
});

/** A service's clocks apply to its live box; a stopped live box is started again by the next request to the URL. */
const SERVICE_LIFECYCLE = Type.Partial(ClosedObject(Lifecycle.properties), {
  additionalProperties: false,
  description:
    "The live box's lifecycle clocks (as a box's): idle means no request to the service's URL. A live box paused or stopped for idleness is woken by the next request, which waits for its health check.",
});

export const ServiceCreate = ClosedObject({
  name: ServiceName,
  base: Type.Optional(Base),
  command: Type.Optional(Command),
  port: Port,
  environment: Type.Optional(EnvironmentMap),
  data_mounts: Type.Optional(Type.Array(DataMount, { maxItems: 32 })),
  health_check: Type.Optional(HealthCheckInput),
  auth: Type.Optional(AuthMode),
  lifecycle: Type.Optional(SERVICE_LIFECYCLE),
});
export type ServiceCreate = Static<typeof ServiceCreate>;

export const ServiceUpdate = Type.Object(
  {
    base: Type.Optional(Base),
    command: Type.Optional(Type.Union([Command, Type.Null()], { description: "null: the base's own command." })),
    port: Type.Optional(Port),
    environment: Type.Optional(EnvironmentMap),
    data_mounts: Type.Optional(Type.Array(DataMount, { maxItems: 32 })),
    health_check: Type.Optional(HealthCheckInput),
    auth: Type.Optional(AuthMode),
    lifecycle: Type.Optional(SERVICE_LIFECYCLE),
  },
  {
    additionalProperties: false,
    description:
      'The spec for the next deployment; auth and lifecycle apply at once (lifecycle: to the live box), the rest at the next deploy.',
  },
);
export type ServiceUpdate = Static<typeof ServiceUpdate>;

export const DeployRequest = Type.Object(
  {
    base: Type.Optional(Base),
    command: Type.Optional(Command),
    environment: Type.Optional(EnvironmentMap),
  },
  {
    additionalProperties: false,
    description:
      "Changes to the spec for this deployment (kept in the service's spec): base and command replace, environment is merged over the service's.",
  },
);
export type DeployRequest = Static<typeof DeployRequest>;

export const ServiceList = Type.Object({ items: Type.Array(Service) });
export type ServiceList = Static<typeof ServiceList>;
export const DeploymentList = Type.Object({ items: Type.Array(Deployment, { description: 'Newest first.' }) });
export type DeploymentList = Static<typeof DeploymentList>;

export const ServiceParams = ClosedObject({ project: DnsLabel, name: ServiceName });
export const DeploymentParams = ClosedObject({ project: DnsLabel, name: ServiceName, id: DeploymentId });

/** The events of services on GET /v1/events, by kind (merged into shared/events.ts). */
export interface ServiceEvents {
  'service.created': { service: Service };
  'service.updated': { service: Service };
  'service.deleted': { service: Service };
  /** Every status or step change of a deployment (the service's representation follows as service.updated when its live deployment changes). */
  'deployment.updated': { service: string; deployment: Deployment };
}

export const SERVICE_EVENTS = {
  'service.created': 'a service was made (its first deployment follows)',
  'service.updated': "a service's spec, auth or live deployment changed",
  'service.deleted': 'a service, its boxes and its route are gone',
  'deployment.updated': "a deployment's status or step changed",
} as const satisfies Record<keyof ServiceEvents, string>;
