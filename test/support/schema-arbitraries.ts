/**
 * fast-check arbitraries from the JSON Schemas of the route table (the subset libs/contracts uses:
 * object, string with formats/enum/lengths, integer, number, boolean, array, type arrays, anyOf of
 * formats). Each schema gives "valid-ish" values that pass it (so handlers go deep) and, some of the
 * time, hostile ones: control characters, lone surrogates, very long strings, numbers near and past
 * 2^53, odd dates, wrong types, scope and unknown fields.
 */
import fc from 'fast-check';

export type JsonSchema = Record<string, unknown>;

/** JSON text placed verbatim by toJsonText: numbers JSON.stringify cannot write (1e400, 2^53+1, -0). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON.stringify, except that RawJson values are written as their text. */
export function toJsonText(v: unknown): string {
  if (v instanceof RawJson) return v.text;
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : toJsonText(x))).join(',')}]`;
  if (v && typeof v === 'object') {
    const parts = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${JSON.stringify(k)}:${toJsonText(x)}`);
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export interface GenOptions {
  /** Real values by field name (customer_id, external_invoice_id, ...), read when a value is drawn. */
  known(field: string): readonly string[];
  /** Optional alternative schemas by JSON pointer (e.g. '/payload'), to reach deeper code paths. */
  hints?: Record<string, JsonSchema[]>;
  /** Weight of a hostile value against 20 for a valid one, per field. */
  hostileWeight?: number;
}

const SCOPE_FIELDS = ['organization_id', 'connected_app_id', 'app_environment_id', 'environment', 'mode'];

const pad2 = (n: number) => String(n).padStart(2, '0');
/**
 * The first and last dates the API accepts (limits.date_min, date_max) and their neighbours: a
 * record dated at an end of the range must not break any report later (issue 21: a bill due
 * 9999-12-31 made every A/P report a 500). 1900 is no leap year.
 */
export const EXTREME_DATES = ['1900-01-01', '9999-12-31', '1900-01-01', '9999-12-31', '1900-02-28', '1900-03-01', '9999-12-30', '9999-01-01'];
/** Date-times whose UTC date is an end of the range (valid), or just past it (400). */
export const EXTREME_DATE_TIMES = [
  '1900-01-01T00:00:00Z',
  '1900-01-01T00:00:00-05:00',
  '9999-12-31T23:59:59Z',
  '9999-12-31T23:59:59.999+14:00',
  '9999-12-31T00:00:00+00:00',
  '1900-01-01T00:00:00+00:01',
  '9999-12-31T23:59:59-00:01',
];
/** Mostly ordinary dates, one in three at an end of the range. */
const validDate = fc.oneof(
  {
    weight: 2,
    arbitrary: fc
      .record({ y: fc.integer({ min: 1990, max: 2099 }), m: fc.integer({ min: 1, max: 12 }), d: fc.integer({ min: 1, max: 28 }) })
      .map(({ y, m, d }) => `${y}-${pad2(m)}-${pad2(d)}`),
  },
  { weight: 1, arbitrary: fc.constantFrom(...EXTREME_DATES) },
);
const validDateTime = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(validDate, fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.constantFrom('Z', '+00:00', '-05:00', '+14:00', '-12:00', '.123Z', '.5+01:00'))
      .map(([d, h, mi, z]) => `${d}T${pad2(h)}:${pad2(mi)}:00${z}`),
  },
  { weight: 1, arbitrary: fc.constantFrom(...EXTREME_DATE_TIMES) },
);
/** A 4-digit year (the 1099 summary's `year`): the ends of the range often, their outer neighbours sometimes. */
const validYear = fc.oneof(
  { weight: 2, arbitrary: fc.integer({ min: 1900, max: 9999 }).map(String) },
  { weight: 2, arbitrary: fc.constantFrom('1900', '9999', '2025', '2026') },
  { weight: 1, arbitrary: fc.constantFrom('1899', '0000', '0999') },
);

/** Dates that are odd on purpose: year 0, impossible days, the last instants, offsets over the edge. */
export const ODD_DATES = [
  '0000-01-01',
  '0001-01-01',
  '0099-12-31',
  '0100-01-01',
  '1969-12-31',
  '2026-02-30',
  '2026-02-29',
  '2024-02-29',
  '2026-13-01',
  '2026-00-10',
  '2026-1-5',
  '9999-12-31',
  '9999-12-01',
  '1899-12-31',
  '1900-01-01',
  '1900-02-29',
  '10000-01-01',
  '+002026-01-01',
  '2026-03-01T25:00:00Z',
  '2026-03-01T24:00:00Z',
  '2026-03-01T23:59:60Z',
  '9999-12-31T23:59:59-14:00',
  '9999-12-31T23:59:59+14:00',
  '1900-01-01T00:00:00+14:00',
  '1900-01-01T00:00:00-14:00',
  '0000-01-01T00:00:00Z',
  '0000-01-01T00:00:00+14:00',
  '0100-01-01T00:00:00+01:00',
  '2026-03-01T10:00:00',
  '2026-03-01 10:00:00Z',
  '2026-03-01t10:00:00z',
  '2026-03-01T10:00:00+2400',
  '20260301',
  '2026-W10-1',
  'today',
];

const CONTROL = ['\u0000', '\u0001', '\u0007', '\b', '\u001b', '\u001f', '\u007f', '\u0085', '\u2028', '\u2029', '\ufeff', '\r\n', '\t'];
const SURROGATES = ['\ud800', '\udfff', 'a\ud800b', '\udc00\ud800', '\ud83d'];

/** Strings no schema should let through unharmed. */
function hostileString(maxLength: number | undefined): fc.Arbitrary<unknown> {
  const long = Math.max((maxLength ?? 1000) + 1, 1);
  return fc.oneof(
    fc.tuple(fc.string({ maxLength: 8 }), fc.constantFrom(...CONTROL), fc.string({ maxLength: 8 })).map(([a, c, b]) => `${a}${c}${b}`),
    fc.tuple(fc.string({ maxLength: 8 }), fc.constantFrom(...SURROGATES)).map(([a, s]) => `${a}${s}`),
    fc.constantFrom('x'.repeat(long), 'é'.repeat(long), '😀'.repeat(Math.ceil(long / 2) + 1), 'x'.repeat(20_000)),
    fc.constantFrom('', ' ', '   ', '\t', '%00', '%ud800', '\\u0000', 'null', 'undefined', "'; --", '${x}', '{{x}}', '<script>', 'ﬀ', 'İ', 'ẞ'),
    fc.string({ unit: 'binary', maxLength: 30 }),
    wrongType('string'),
  );
}

/** A value of any JSON type but `type`. */
function wrongType(type: string): fc.Arbitrary<unknown> {
  const all: Record<string, fc.Arbitrary<unknown>> = {
    string: fc.constantFrom('5', 'true', '', '2026-03-01'),
    number: fc.constantFrom(0, 5, -1, 1.5),
    boolean: fc.boolean(),
    null: fc.constant(null),
    array: fc.constantFrom([], ['x'], [1, 2]),
    object: fc.constantFrom({}, { a: 1 }),
  };
  const others = Object.entries(all)
    .filter(([t]) => t !== type && !(type === 'integer' && t === 'number'))
    .map(([, a]) => a);
  return fc.oneof(...others);
}

/** Numbers at and past every edge: 2^53 ± 1, zero, negatives, fractions, huge, JSON text oddities. */
function hostileNumber(s: JsonSchema): fc.Arbitrary<unknown> {
  const min = typeof s.minimum === 'number' ? s.minimum : undefined;
  const max = typeof s.maximum === 'number' ? s.maximum : undefined;
  const edges = [0, -1, -0.5, 0.5, 1.5, 0.00001, 0.12345, 2 ** 31, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 1e20, 1e308, Number.MIN_VALUE];
  if (min !== undefined) edges.push(min - 1, min - 0.0001);
  if (max !== undefined) edges.push(max + 1, max + 0.5, max * 10);
  return fc.oneof(
    fc.constantFrom(...edges),
    fc.constantFrom(
      new RawJson('9007199254740993'),
      new RawJson('1e400'),
      new RawJson('-1e400'),
      new RawJson('-0'),
      new RawJson('1E2'),
      new RawJson('100.0'),
      new RawJson('1.0000000000000000001'),
    ),
    wrongType(s.type === 'integer' ? 'integer' : 'number'),
  );
}

/** A number with at most 4 decimals in (0, max]. */
function validNumber(s: JsonSchema): fc.Arbitrary<number> {
  const max = typeof s.maximum === 'number' ? s.maximum : 1_000_000;
  return fc.oneof(
    fc.integer({ min: 1, max: 100 }),
    fc.tuple(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 0, max: 4 })).map(([n, k]) => Math.min(max, n / 10 ** k)),
    fc.constantFrom(max, 0.0001, 1_000_000),
  );
}

function validInteger(s: JsonSchema): fc.Arbitrary<number> {
  const min = typeof s.minimum === 'number' ? s.minimum : 0;
  const max = typeof s.maximum === 'number' ? s.maximum : 2 ** 31;
  return fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min, max: Math.min(max, min + 100_000) }) },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
    { weight: 1, arbitrary: fc.integer({ min, max: Math.min(max, Number.MAX_SAFE_INTEGER) }) },
  );
}

const fromPool = (opts: GenOptions, field: string) =>
  fc.nat().map((i) => {
    const pool = opts.known(field);
    return pool.length ? pool[i % pool.length] : undefined;
  });

function validString(s: JsonSchema, field: string, opts: GenOptions): fc.Arbitrary<unknown> {
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const anyOf = s.anyOf as JsonSchema[] | undefined;
  if (anyOf?.length) return fc.oneof(...anyOf.map((b) => validString({ ...s, anyOf: undefined, ...b }, field, opts)));
  const minLength = typeof s.minLength === 'number' ? s.minLength : 0;
  const maxLength = typeof s.maxLength === 'number' ? s.maxLength : 200;
  if (s.pattern === '^[0-9]{4}$') return validYear;
  switch (s.format) {
    case 'uuid':
      return fc.oneof({ weight: 3, arbitrary: fromPool(opts, field).chain((v) => (v ? fc.constant(v) : fc.uuid())) }, { weight: 1, arbitrary: fc.uuid() });
    case 'date':
      return validDate;
    case 'date-time':
      return validDateTime;
    case 'email':
      return fc.tuple(fc.stringMatching(/^[a-z][a-z0-9.]{0,12}$/), fc.constantFrom('example.com', 'example.org', 'mail.example.co.uk')).map(([l, d]) => `fuzz.${l}@${d}`);
    default:
      break;
  }
  const fresh = fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: Math.max(minLength, 1), maxLength: Math.min(maxLength, 40) }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: Math.max(minLength, 1), maxLength: Math.min(maxLength, 20) }) },
    { weight: 1, arbitrary: fc.constant('y'.repeat(maxLength)) },
  );
  const trimmed = fresh.filter((x) => x.length >= minLength && x.length <= maxLength);
  if (/^external_.*_id$/.test(field)) {
    // Mostly unique (creates succeed), sometimes an existing one (replays and conflicts).
    const unique = fc.uuid().map((u) => `fz-${u}`);
    return fc.oneof(
      { weight: 3, arbitrary: unique },
      { weight: 1, arbitrary: fromPool(opts, field).chain((v) => (v ? fc.constant(v) : unique)) },
      { weight: 1, arbitrary: trimmed },
    );
  }
  return trimmed;
}

function hostileFor(s: JsonSchema, field: string): fc.Arbitrary<unknown> {
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string': {
      const specific: fc.Arbitrary<unknown>[] = [hostileString(s.maxLength as number | undefined)];
      const formats = [s.format, ...((s.anyOf as JsonSchema[] | undefined) ?? []).map((b) => b.format)];
      if (formats.includes('date') || formats.includes('date-time')) specific.push(fc.constantFrom(...ODD_DATES), fc.constantFrom(...ODD_DATES), fc.constantFrom(...ODD_DATES));
      if (formats.includes('uuid')) {
        specific.push(
          fc.uuid().map((u) => u.toUpperCase()),
          fc.uuid().map((u) => u.replace(/-/g, '')),
          fc.uuid().map((u) => `{${u}}`),
          fc.uuid().map((u) => `${u}\u0000`),
          fc.constantFrom('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'not-a-uuid', '1'),
        );
      }
      if (formats.includes('email'))
        specific.push(fc.constantFrom('a@b', 'no-at-sign', '@example.com', 'a@@example.com', `${'a'.repeat(250)}@example.com`, 'ä@ö.de', 'a b@example.com'));
      if (Array.isArray(s.enum)) specific.push(fc.constantFrom(...(s.enum as string[]).flatMap((v) => [v.toUpperCase(), ` ${v}`, `${v}\u0000`, `${v}s`])));
      return fc.oneof(...specific);
    }
    case 'integer':
    case 'number':
      return hostileNumber(s);
    case 'boolean':
      return fc.constantFrom('true', 1, 0, null, 'false');
    case 'array':
      return fc.oneof(fc.constant([]), fc.constant(null), fc.constant({}), fc.constant([[[]]]), fc.constant(['x']));
    case 'object':
      return fc.oneof(fc.constant(null), fc.constant([]), fc.constant('{}'), fc.constant({ [field]: {} }));
    default:
      return wrongType('any');
  }
}

/**
 * Values for `schema` at JSON pointer `pointer`: valid ones most of the time, hostile ones with
 * weight opts.hostileWeight (default 1) against 20.
 */
export function arbitraryFor(schema: JsonSchema, opts: GenOptions, pointer = '', field = ''): fc.Arbitrary<unknown> {
  const hint = opts.hints?.[pointer];
  const valid = hint ? fc.oneof(validFor(schema, opts, pointer, field), ...hint.map((h) => validFor(h, opts, pointer, field))) : validFor(schema, opts, pointer, field);
  const hw = opts.hostileWeight ?? 1;
  if (hw <= 0) return valid;
  return fc.oneof({ weight: 20, arbitrary: valid }, { weight: hw, arbitrary: hostileFor(schema, field) });
}

function validFor(s: JsonSchema, opts: GenOptions, pointer: string, field: string): fc.Arbitrary<unknown> {
  const type = Array.isArray(s.type) ? (s.type as string[])[0] : (s.type as string | undefined);
  const nullable = Array.isArray(s.type) && (s.type as string[]).includes('null');
  const base = ((): fc.Arbitrary<unknown> => {
    switch (type) {
      case 'string':
        return validString(s, field, opts);
      case 'integer':
        return validInteger(s);
      case 'number':
        return validNumber(s);
      case 'boolean':
        return fc.boolean();
      case 'array': {
        const items = (s.items as JsonSchema | undefined) ?? {};
        const minLength = typeof s.minItems === 'number' ? s.minItems : 0;
        const maxLength = Math.min(typeof s.maxItems === 'number' ? s.maxItems : 3, 3);
        return fc.array(arbitraryFor(items, opts, `${pointer}/0`, field), { minLength, maxLength: Math.max(minLength, maxLength) });
      }
      case 'object':
        return objectFor(s, opts, pointer);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  })();
  return nullable ? fc.oneof({ weight: 5, arbitrary: base }, { weight: 1, arbitrary: fc.constant(null) }) : base;
}

function objectFor(s: JsonSchema, opts: GenOptions, pointer: string): fc.Arbitrary<unknown> {
  const props = (s.properties as Record<string, JsonSchema> | undefined) ?? {};
  const required = new Set((s.required as string[] | undefined) ?? []);
  const names = Object.keys(props);
  if (!names.length) {
    const values = s.additionalProperties;
    if (values && typeof values === 'object') {
      // A map of the caller's own keys (metadata): its values, keys that name prototype members or break its key rule, up to a few past its limit.
      const key = fc.oneof(
        { weight: 6, arbitrary: fc.stringMatching(/^[a-z_]{1,12}$/) },
        { weight: 1, arbitrary: fc.constantFrom('constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'a[b]', '', 'k'.repeat(41)) },
      );
      const maxKeys = Math.min(typeof s.maxProperties === 'number' ? s.maxProperties + 2 : 4, 60);
      return fc.dictionary(key, arbitraryFor(values as JsonSchema, opts, `${pointer}/*`), { maxKeys });
    }
    // A free-form object (e.g. an event payload): small JSON.
    return fc.dictionary(fc.stringMatching(/^[a-z_]{1,12}$/), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
  }
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const n of names) record[n] = arbitraryFor(props[n]!, opts, `${pointer}/${n}`, n);
  const valid = fc.record(record, { requiredKeys: names.filter((n) => required.has(n)) });
  const hw = opts.hostileWeight ?? 1;
  if (hw <= 0) return valid;
  // Object-level hostility: a required field missing, an unknown field, a scope field, prototype keys.
  const extraKey = fc.constantFrom('extra', 'Name', 'id', '__proto__', 'constructor', 'prototype', 'a b', 'ä', '', `${names[0]} `, 'x'.repeat(300));
  return fc.oneof(
    { weight: 20, arbitrary: valid },
    { weight: hw, arbitrary: fc.tuple(valid, fc.constantFrom(...names)).map(([o, k]) => omit(o as Record<string, unknown>, k)) },
    { weight: hw, arbitrary: fc.tuple(valid, extraKey, fc.jsonValue({ maxDepth: 1 })).map(([o, k, v]) => withKey(o as Record<string, unknown>, k, v)) },
    { weight: hw, arbitrary: fc.tuple(valid, fc.constantFrom(...SCOPE_FIELDS), fc.uuid()).map(([o, k, v]) => withKey(o as Record<string, unknown>, k, v)) },
  );
}

function omit(o: Record<string, unknown>, k: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...o };
  delete out[k];
  return out;
}

function withKey(o: Record<string, unknown>, k: string, v: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { ...o };
  Object.defineProperty(out, k, { value: v, enumerable: true, configurable: true, writable: true });
  return out;
}

/** One value that passes `schema`, with required fields only: for requests that must get past validation. */
export function sampleValid(schema: JsonSchema, field = ''): unknown {
  const type = Array.isArray(schema.type) ? (schema.type as string[])[0] : schema.type;
  switch (type) {
    case 'object': {
      const props = (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
      const out: Record<string, unknown> = {};
      for (const k of (schema.required as string[] | undefined) ?? []) out[k] = sampleValid(props[k]!, k);
      // minProperties (e.g. a PATCH body needs one field): add optional ones in declaration order.
      const min = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
      for (const k of Object.keys(props)) if (Object.keys(out).length < min && !(k in out)) out[k] = sampleValid(props[k]!, k);
      return out;
    }
    case 'array':
      return Array.from({ length: typeof schema.minItems === 'number' ? schema.minItems : 0 }, () => sampleValid((schema.items as JsonSchema) ?? {}, field));
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? Math.max(schema.minimum, 1) : 1;
    case 'boolean':
      return false;
    case 'string': {
      if (Array.isArray(schema.enum)) return schema.enum[0];
      const format = schema.format ?? (schema.anyOf as JsonSchema[] | undefined)?.[0]?.format;
      if (format === 'uuid') return '00000000-0000-4000-8000-000000000000';
      if (format === 'date') return '2026-03-01';
      if (format === 'date-time') return '2026-03-01T00:00:00Z';
      if (format === 'email') return 'sample@example.com';
      return 'x'.repeat(typeof schema.minLength === 'number' ? Math.max(schema.minLength, 1) : 1);
    }
    default:
      return null;
  }
}

/** What a single mutation puts into one leaf of an otherwise valid value. */
const POISONS = ['\u0000', '\ud800', '\udfff', '\u0001', '\u007f', '\u2028', '\ufeff', '\u200b', 'e\u0301', '\u202e'];
const EDGE_NUMBERS: unknown[] = [0, -1, 0.5, 2 ** 53, 2 ** 53 + 2, 1e20, new RawJson('9007199254740993'), new RawJson('1e400'), new RawJson('-0')];

/**
 * A valid value with exactly one leaf poisoned: a control character or lone surrogate added to a
 * string, an odd date in a date, an edge number in a number. Everything else still passes its schema,
 * so the poisoned value reaches the handler and the database.
 */
export function poisonOne(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(valid, fc.nat(), fc.nat(), fc.boolean()).map(([v, at, pick, append]) => {
    const leaves: { set: (x: unknown) => void; value: unknown }[] = [];
    const walk = (x: unknown, set: (y: unknown) => void) => {
      if (Array.isArray(x)) x.forEach((y, i) => walk(y, (z) => (x[i] = z)));
      else if (x && typeof x === 'object' && !(x instanceof RawJson))
        for (const k of Object.keys(x)) walk((x as Record<string, unknown>)[k], (z) => ((x as Record<string, unknown>)[k] = z));
      else if (typeof x === 'string' || typeof x === 'number') leaves.push({ set, value: x });
    };
    const copy = structuredClone(v);
    let root = copy;
    walk(copy, (z) => (root = z));
    if (!leaves.length) return copy;
    const leaf = leaves[at % leaves.length]!;
    if (typeof leaf.value === 'number') leaf.set(EDGE_NUMBERS[pick % EDGE_NUMBERS.length]);
    else if (/^\d{4}-\d{2}-\d{2}/.test(leaf.value as string) && pick % 2 === 0) leaf.set(ODD_DATES[pick % ODD_DATES.length]);
    else {
      const p = POISONS[pick % POISONS.length]!;
      leaf.set(append ? `${leaf.value as string}${p}` : `${p}${leaf.value as string}`);
    }
    return root;
  });
}
