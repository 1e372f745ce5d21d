import fc from 'fast-check';

/** The subset of JSON Schema the core's TypeBox schemas produce (and so the served OpenAPI document holds). */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  format?: string;
  default?: unknown;
}

/** A pattern as fast-check can generate from, or null where it cannot. */
/**
 * Arbitraries of a pattern, made once: fast-check builds a pattern's arbitrary by tokenizing its
 * sample strings against every character class (a negated class tests each character against
 * each of its parts), which took three quarters of the fuzzer's CPU when made per operation and run.
 */
const patternArbitraries = new Map<string, fc.Arbitrary<string> | null>();

function patternArbitrary(pattern: string, maxLength?: number): fc.Arbitrary<string> | null {
  const key = `${maxLength ?? ''}/${pattern}`;
  if (!patternArbitraries.has(key)) patternArbitraries.set(key, makePatternArbitrary(pattern, maxLength));
  return patternArbitraries.get(key)!;
}

function makePatternArbitrary(pattern: string, maxLength?: number): fc.Arbitrary<string> | null {
  try {
    const regex = new RegExp(pattern, 'u');
    const arb = fc.stringMatching(regex);
    return maxLength === undefined ? arb : arb.filter((s) => s.length <= maxLength);
  } catch {
    return null;
  }
}

/** Values that satisfy `schema`: the "valid request" half of the fuzzer. */
export function validValue(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return fc.oneof(...union.map((s) => validValue(s, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string': {
      if (schema.format === 'binary') return fc.string({ maxLength: 64 });
      if (schema.format === 'date-time')
        return fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString());
      if (schema.pattern) {
        const arb = patternArbitrary(schema.pattern, schema.maxLength);
        if (arb) return arb;
      }
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 24, 24) });
    }
    case 'integer':
      return fc.integer({
        min: Math.max(schema.minimum ?? -1e6, Number.MIN_SAFE_INTEGER),
        max: Math.min(schema.maximum ?? 1e6, Number.MAX_SAFE_INTEGER),
      });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      if (depth > 4) return fc.constant([]);
      return fc.array(validValue(schema.items ?? {}, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    }
    case 'object':
      return objectValue(schema, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectValue(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const props = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const fixed =
    depth > 4
      ? fc.constant({})
      : fc.record(Object.fromEntries(Object.entries(props).map(([k, s]) => [k, validValue(s, depth + 1)])), {
          requiredKeys: [...required].filter((k) => k in props),
        });
  const [keyPattern, valueSchema] = Object.entries(schema.patternProperties ?? {})[0] ?? [];
  const keyArb = keyPattern
    ? patternArbitrary(keyPattern)
    : typeof schema.additionalProperties === 'object'
      ? fc.string({ minLength: 1, maxLength: 12 })
      : null;
  const mapValue =
    valueSchema ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : null);
  if (!keyArb || !mapValue || depth > 4) return fixed;
  const map = fc.dictionary(keyArb, validValue(mapValue, depth + 1), { maxKeys: 3 });
  return fc.tuple(fixed, map).map(([a, b]) => ({ ...b, ...(a as object) }));
}

/** Strings a careless server mishandles: long, non-ASCII, control characters, look-alikes of syntax. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '..',
    '../..',
    '/',
    '\\',
    '%',
    '%00',
    '\u0000',
    '\n',
    '\r\n',
    '"',
    "'",
    '{}',
    '[]',
    'null',
    '__proto__',
    'constructor',
    '$(id)',
    '`id`',
    '; rm -rf /',
    '<script>',
    '\uFEFF',
    '\uD800',
    'é',
    '😀',
    'ǅ',
    'ＡＢＣ',
    '\u202E',
  ),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer({ min: 256, max: 70_000 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 64, max: 4000 }).map((n) => '😀'.repeat(n)),
);

/** Numbers at and past every edge an int32/JS-number API has. */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    -1,
    0,
    -0,
    0.5,
    -2147483649,
    2147483647,
    2147483648,
    4294967296,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 2,
    1e308,
    -1e308,
    5e-324,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Any JSON value of another type than `schema` allows (best effort: a union may accept it, which is fine). */
export function wrongTypeValue(schema: JsonSchema): fc.Arbitrary<unknown> {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const others: fc.Arbitrary<unknown>[] = [];
  if (type !== 'string') others.push(hostileString);
  if (type !== 'integer' && type !== 'number') others.push(hostileNumber);
  if (type !== 'boolean') others.push(fc.boolean());
  if (type !== 'object')
    others.push(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }));
  if (type !== 'array') others.push(fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }));
  others.push(fc.constant(null));
  return fc.oneof(...others);
}

/** Where in a JSON value something can be changed, as a key path. */
export function valuePaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...valuePaths(v, [...prefix, i])));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) out.push(...valuePaths(v, [...prefix, k]));
  return out;
}

/** The schema that governs `path` inside a value of `schema`, as far as it can be followed. */
export function schemaAt(schema: JsonSchema, path: (string | number)[]): JsonSchema {
  let s: JsonSchema = schema;
  for (const key of path) {
    const union = s.anyOf ?? s.oneOf;
    if (union) s = union.find((u) => u.type === 'object' || u.type === 'array') ?? union[0]!;
    if (typeof key === 'number') s = s.items ?? {};
    else
      s =
        s.properties?.[key] ??
        Object.values(s.patternProperties ?? {})[0] ??
        (typeof s.additionalProperties === 'object' ? s.additionalProperties : {});
  }
  return s;
}

/** A deep copy of `value` with `path` set to `next` (or removed when `next` is `REMOVE`). */
export const REMOVE = Symbol('remove');
export function withValueAt(value: unknown, path: (string | number)[], next: unknown): unknown {
  if (path.length === 0) return next === REMOVE ? undefined : next;
  const [key, ...rest] = path;
  const copy = (Array.isArray(value) ? [...(value as unknown[])] : { ...(value as object) }) as Record<
    string | number,
    unknown
  >;
  if (rest.length === 0 && next === REMOVE) {
    if (Array.isArray(copy)) (copy as unknown[]).splice(key as number, 1);
    else delete copy[key!];
  } else {
    // defineProperty: a key named __proto__ must become data, not the copy's prototype.
    Object.defineProperty(copy, key!, {
      value: withValueAt(copy[key!], rest, next),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

export function valueAt(value: unknown, path: (string | number)[]): unknown {
  let v = value;
  for (const key of path)
    v = v && typeof v === 'object' && Object.hasOwn(v, key) ? (v as Record<string | number, unknown>)[key] : undefined;
  return v;
}

/**
 * `json` with the fields named in `values` set to one of those values: those it has, and those
 * its schema knows (so a restricted caller's valid bodies reach what collides with the other project).
 */
export function withBodyValues(
  json: unknown,
  values: Record<string, unknown[]>,
  schema: JsonSchema,
): fc.Arbitrary<unknown> {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return fc.constant(json);
  const known = new Set([...Object.keys(json), ...Object.keys(schema.properties ?? {})]);
  const keys = Object.keys(values).filter((k) => known.has(k) && values[k]!.length > 0);
  if (keys.length === 0) return fc.constant(json);
  return fc
    .tuple(...keys.map((k) => fc.constantFrom(...values[k]!)))
    .map((picked) => ({ ...(json as object), ...Object.fromEntries(keys.map((k, i) => [k, picked[i]])) }));
}
