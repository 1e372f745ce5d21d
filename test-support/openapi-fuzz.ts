import fc from 'fast-check';
import {
  REMOVE,
  hostileNumber,
  hostileString,
  schemaAt,
  validValue,
  valueAt,
  valuePaths,
  withBodyValues,
  withValueAt,
  wrongTypeValue,
  type JsonSchema,
} from './openapi-arbitraries';
import type { Operation } from './openapi-operations';

/** A request ready to send, and how it was made (for the failure report). */
export interface FuzzRequest {
  op: string;
  method: string;
  /** The path and query exactly as sent (already escaped, or deliberately not). */
  target: string;
  headers: Record<string, string>;
  body?: string;
  /** The body as a value before it was serialised, when it was JSON. */
  json?: unknown;
  /** Names the request's token may not see (another project's): no answer may carry one it did not send. */
  hidden?: string[];
  kind: string;
}

/** Values the fuzzer uses for path parameters when it means them to be valid (existing boxes, a project). */
export type ParamPool = Record<string, string[]>;

/**
 * Who sends the requests. `admin` is the core's own token. `restricted` is a token limited to a
 * project of its own, with its own pool of path values and the names it must never be told
 * (the other project's); `bodyValues` put values that collide with the other project (a domain
 * one of its boxes holds) into body fields of that name.
 */
export interface FuzzCallers {
  admin: { token: string; pool: ParamPool };
  restricted?: { token: string; pool: ParamPool; hidden: string[]; bodyValues: Record<string, unknown[]> };
}

const HOSTILE_SEGMENTS = [
  '..',
  '.',
  '%2e%2e',
  '%2E%2E%2F..',
  '%00',
  '%',
  '%zz',
  '%c0%ae%c0%ae',
  '%2F',
  '%5C',
  ';',
  '*',
  '%20',
  'UPPER',
  '-lead',
  'trail-',
  'a'.repeat(64),
  'c'.repeat(101),
  'b'.repeat(3000),
  'é',
  '%C3%A9',
  '%E2%80%AE',
  '%F0%9F%98%80',
  '%ED%A0%80',
  '%FF',
  '..%2F..%2Fetc%2Fpasswd',
];

/** Characters Node refuses in a header value are replaced: the fuzzer tests the server, not the client library. */
const sendableHeader = (s: string) => s.replace(/[^\t\x20-\x7e]/g, '?');

function pathSegment(
  name: string,
  schema: JsonSchema,
  pool: ParamPool,
): fc.Arbitrary<{ value: string; hostile: boolean }> {
  const valid = pool[name]?.length
    ? fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...pool[name]!) },
        { weight: 1, arbitrary: validValue(schema).map(String) },
      )
    : validValue(schema).map(String);
  return fc.oneof(
    { weight: 7, arbitrary: valid.map((v) => ({ value: encodeURIComponent(v), hostile: false })) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS).map((value) => ({ value, hostile: true })) },
    {
      weight: 1,
      arbitrary: hostileString
        .filter((s) => s.length < 4000)
        .map((s) => ({ value: encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, '?')), hostile: true })),
    },
  );
}

function queryValue(schema: JsonSchema): fc.Arbitrary<string | null> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(null) },
    {
      weight: 3,
      arbitrary: validValue(schema).map((v) => encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))),
    },
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          hostileString.filter((s) => s.length < 2000),
          hostileNumber.map(String),
        )
        .map((s) => encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, '?'))),
    },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '', 'true', '1', '-1', '1e999', 'NaN', 'a%00b') },
  );
}

const RAW_BODIES = [
  '',
  '{',
  '}',
  'null',
  '[]',
  '"text"',
  '0',
  'true',
  '{"a":}',
  '{"a":1,"a":2}',
  '\u0000',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '['.repeat(5000) + ']'.repeat(5000),
  '{"a":'.repeat(3000) + '1' + '}'.repeat(3000),
];

const ODD_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/problem+json',
  'application/json, text/plain',
  'application/jsonx',
  'json',
  '',
  '*/*',
  'text/html; charset=utf-8',
];

/** A JSON body: valid, or valid then broken in one place. */
function jsonBody(schema: JsonSchema): fc.Arbitrary<{ json: unknown; kind: string }> {
  const valid = validValue(schema);
  const mutated = valid.chain((v) => {
    const paths = valuePaths(v);
    return fc.tuple(fc.constantFrom(...paths), fc.nat(5)).chain(([path, how]) => {
      const at = schemaAt(schema, path);
      switch (how) {
        case 0:
          return wrongTypeValue(at).map((w) => ({
            json: withValueAt(v, path, w),
            kind: `wrong type at /${path.join('/')}`,
          }));
        case 1:
          return fc.constant({
            json: path.length ? withValueAt(v, path, REMOVE) : undefined,
            kind: `removed /${path.join('/')}`,
          });
        case 2: {
          const here = valueAt(v, path);
          const objectPath = here && typeof here === 'object' && !Array.isArray(here) ? path : path.slice(0, -1);
          const parent = valueAt(v, objectPath);
          return fc
            .tuple(fc.constantFrom('__fuzz', 'extra', '__proto__', 'constructor', 'é'), fc.jsonValue({ maxDepth: 1 }))
            .map(([k, x]) =>
              parent && typeof parent === 'object' && !Array.isArray(parent)
                ? { json: withValueAt(v, [...objectPath, k], x), kind: `extra field ${k} in /${objectPath.join('/')}` }
                : { json: { [k]: x }, kind: `only an unknown field ${k}` },
            );
        }
        case 3:
          return hostileString.map((s) => ({
            json: withValueAt(v, path, s),
            kind: `hostile string at /${path.join('/')}`,
          }));
        case 4:
          return hostileNumber.map((n) => ({
            json: withValueAt(v, path, n),
            kind: `hostile number at /${path.join('/')}`,
          }));
        default:
          return fc.constant({ json: v, kind: 'valid' });
      }
    });
  });
  return fc.oneof(
    { weight: 1, arbitrary: valid.map((json) => ({ json, kind: 'valid' })) },
    { weight: 4, arbitrary: mutated },
  );
}

type BodyChoice = { body?: string; json?: unknown; contentType?: string; kind: string };

/** Paths below a /v1 operation's own that no route serves: with the window served too they stay 404 problems. */
const UNROUTED_SUFFIXES = ['/__fuzz_nothing', '/x/y/z', '/' + 'd'.repeat(101)];

/** A body for `op`: mostly from its JSON schema, else raw, odd content types, too large; one where it takes none. */
function bodyFor(op: Operation): fc.Arbitrary<BodyChoice> {
  const jsonSchema = op.body?.content['application/json'];
  return op.body
    ? fc.oneof(
        {
          weight: 6,
          arbitrary: jsonSchema
            ? jsonBody(jsonSchema).map(({ json, kind }) => ({
                json,
                body: json === undefined ? undefined : JSON.stringify(json),
                contentType: 'application/json',
                kind,
              }))
            : fc.constant({ kind: 'no body' }),
        },
        {
          weight: 1,
          arbitrary: fc.constantFrom(...RAW_BODIES).map((body) => ({
            body,
            contentType: 'application/json',
            kind: `raw body ${JSON.stringify(body.slice(0, 20))}`,
          })),
        },
        {
          weight: 1,
          arbitrary: fc
            .tuple(fc.constantFrom(...ODD_CONTENT_TYPES), fc.constantFrom('{}', '{"name":"x"}', 'a=b', '--xyz--', ''))
            .map(([ct, body]) => ({ body, contentType: ct || undefined, kind: `content type ${JSON.stringify(ct)}` })),
        },
        {
          weight: 1,
          arbitrary: fc.constant({
            body: JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 16) }),
            contentType: 'application/json',
            kind: 'body over 1 MiB',
          }),
        },
      )
    : fc.oneof(
        { weight: 8, arbitrary: fc.constant({ kind: 'no body' }) },
        {
          weight: 1,
          arbitrary: fc
            .tuple(fc.constantFrom(...ODD_CONTENT_TYPES), fc.constantFrom('{}', 'junk', ''))
            .map(([ct, body]) => ({
              body,
              contentType: ct || undefined,
              kind: `unexpected body as ${JSON.stringify(ct)}`,
            })),
        },
        {
          // A well-formed JSON object that the route has no use for: refused like any other body.
          weight: 1,
          arbitrary: fc
            .dictionary(fc.constantFrom('force', 'name', '__fuzz', 'extra'), fc.jsonValue({ maxDepth: 1 }), {
              minKeys: 1,
              maxKeys: 3,
            })
            .map((json) => ({
              json,
              body: JSON.stringify(json),
              contentType: 'application/json',
              kind: 'a JSON body on a route that takes none',
            })),
        },
      );
}

type Auth = 'admin' | 'none' | 'bogus' | 'restricted';

/** The body a caller sends: the restricted caller sends valid bodies with the colliding values (breaking them is the admin's part). */
function bodyForCaller(op: Operation, restricted: FuzzCallers['restricted'] | undefined): fc.Arbitrary<BodyChoice> {
  const jsonSchema = op.body?.content['application/json'];
  if (!restricted) return bodyFor(op);
  if (!jsonSchema) return fc.constant({ kind: 'no body' });
  return validValue(jsonSchema)
    .chain((json) => withBodyValues(json, restricted.bodyValues, jsonSchema))
    .map((json) => ({ json, body: JSON.stringify(json), contentType: 'application/json', kind: 'valid' }));
}

/** One request for `op` from one caller: path, query, headers and body each valid or hostile. */
function requestForCaller(op: Operation, callers: FuzzCallers, auth: Auth): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const headerParams = op.params.filter((p) => p.in === 'header');
  const restricted = auth === 'restricted' ? callers.restricted : undefined;
  const pool = restricted?.pool ?? callers.admin.pool;
  const body = bodyForCaller(op, restricted);
  return fc
    .record({
      // The restricted caller probes what it may see, so its path values are its own (hostile ones are the admin's).
      segments: fc.tuple(
        ...pathParams.map((p) =>
          restricted && pool[p.name]?.length
            ? fc.constantFrom(...pool[p.name]!).map((v) => ({ value: encodeURIComponent(v), hostile: false }))
            : pathSegment(p.name, p.schema, pool),
        ),
      ),
      query: fc.tuple(...queryParams.map((p) => queryValue(p.schema))),
      extraQuery: fc.option(fc.constantFrom('x=1', 'a[b]=c', '__proto__=1', 'limit=1&limit=2', '=', '&&', '%'), {
        freq: 4,
      }),
      headerValues: fc.tuple(
        ...headerParams.map((p) =>
          fc.option(
            fc
              .oneof(
                validValue(p.schema).map(String),
                hostileString.filter((s) => s.length < 1000),
              )
              .map(sendableHeader),
            { freq: 2 },
          ),
        ),
      ),
      unrouted: op.path.startsWith('/v1/')
        ? fc.oneof(
            { weight: 11, arbitrary: fc.constant(null) },
            { weight: 1, arbitrary: fc.constantFrom(...UNROUTED_SUFFIXES) },
          )
        : fc.constant(null),
      body,
    })
    .map(({ segments, query, extraQuery, headerValues, unrouted, body }) => {
      let target = op.path;
      pathParams.forEach((p, i) => (target = target.replace(`{${p.name}}`, segments[i]!.value)));
      if (unrouted) target += unrouted;
      const qs = queryParams.flatMap((p, i) => (query[i] === null ? [] : [`${p.name}=${query[i]}`]));
      if (extraQuery) qs.push(extraQuery);
      if (qs.length) target += `?${qs.join('&')}`;
      const headers: Record<string, string> = {};
      if (auth === 'admin') headers.authorization = `Bearer ${callers.admin.token}`;
      if (restricted) headers.authorization = `Bearer ${restricted.token}`;
      if (auth === 'bogus') headers.authorization = 'Bearer not-a-token';
      headerParams.forEach((p, i) => {
        if (headerValues[i] !== null) headers[p.name] = headerValues[i]!;
      });
      if (body.contentType !== undefined) headers['content-type'] = body.contentType;
      const hostilePath = segments.some((s) => s.hostile);
      const kinds = [
        body.kind,
        hostilePath ? 'hostile path' : '',
        unrouted ? 'no such route' : '',
        auth !== 'admin' ? `auth ${auth}` : '',
      ].filter(Boolean);
      return {
        op: op.id,
        method: op.method,
        target,
        headers,
        body: body.body,
        json: body.json,
        ...(restricted ? { hidden: restricted.hidden } : {}),
        kind: kinds.join(', '),
      };
    });
}

/** One request for `op`, from one of the callers picked by weight (each caller's arbitrary built once). */
export function requestFor(op: Operation, callers: FuzzCallers): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 7, arbitrary: requestForCaller(op, callers, 'admin') },
    { weight: 1, arbitrary: requestForCaller(op, callers, 'none') },
    { weight: 1, arbitrary: requestForCaller(op, callers, 'bogus') },
    ...(callers.restricted ? [{ weight: 2, arbitrary: requestForCaller(op, callers, 'restricted') }] : []),
  );
}
