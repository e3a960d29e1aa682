import { type Static, type TObject, type TOptional, type TProperties, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';
import { limits } from '../limits';

/** A JSON Schema (draft 2020-12 subset that ajv and OpenAPI 3.1 both read). */
export type JsonSchema = Record<string, unknown>;

/**
 * `{type: 'string', enum: [...]}` typed as the union of its values. TypeBox's own Union of Literals
 * would emit anyOf/const; this keeps the plain enum that the OpenAPI document has always shown.
 */
export function StringEnum<const V extends readonly string[]>(values: V, options: Record<string, unknown> = {}): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...options });
}

/** `{type: [<type>, 'null'], ...}`: the schema of s, or null (OpenAPI 3.1 / JSON Schema type array). */
export function Nullable<T extends TSchema>(s: T): TUnsafe<Static<T> | null> {
  const { type, ...rest } = JSON.parse(JSON.stringify(s)) as { type: string } & JsonSchema;
  return Type.Unsafe<Static<T> | null>({ type: [type, 'null'], ...rest });
}

/** The one spelling of an id the API takes: hyphenated hex, either case; no urn:uuid:, braces or padding. */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const uuidSchema = { format: 'uuid', pattern: UUID_PATTERN } as const;
export const uuid = Type.String({
  ...uuidSchema,
  description: 'A record id: a UUID, hyphenated (8-4-4-4-12 hex digits). Returned lower-case; an upper-case id names the same record.',
});
/** Said in every date's description: the range the API accepts (limits.date_min … date_max). */
export const DATE_RANGE_TEXT = `from ${limits.date_min} to ${limits.date_max}`;
export const date = Type.String({ format: 'date', description: `Calendar date, YYYY-MM-DD, ${DATE_RANGE_TEXT}.` });
export const dateTime = Type.String({
  format: 'date-time',
  description: `RFC 3339 date-time with an offset (Z or ±hh:mm); its UTC date lies ${DATE_RANGE_TEXT}.`,
});
export const cents = Type.Integer({ minimum: 0, maximum: limits.amount_cents_max });
export const externalId = Type.String({ minLength: 1, maxLength: limits.external_id_length_max });
export const name = Type.String({ minLength: 1, maxLength: limits.name_length_max });
export const email = Type.String({ format: 'email', maxLength: limits.email_length_max });

/**
 * A closed object (unknown fields are refused): properties wrapped in Type.Optional are optional,
 * all others required. `required` is always present, empty when nothing is required.
 */
export function obj<T extends TProperties>(properties: T, extra: JsonSchema = {}): TObject<T> {
  const { type, properties: props, required, ...rest } = Type.Object(properties, { additionalProperties: false, ...extra });
  // Keys in the order the OpenAPI document has always shown them; rest keeps TypeBox's symbols.
  return { type, properties: props, required: required ?? [], ...rest };
}

export const idParams = obj({ id: uuid });

const cursorText = (walk: string) =>
  `The id of an item of this same list (of the key's organization and environment): the page ${walk}, in the list's order. ` +
  'An id that is not in the list is refused (400 validation_failed naming this parameter). Not with offset (0 or absent) ' +
  'nor with the other cursor. No limit on how deep a cursor goes.';

/** The page parameters of every list: limit, offset and the two cursors (API-DECISIONS §3, §11). */
export const cursorQuery = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: limits.page_limit_max,
      default: limits.page_limit_default,
      description:
        `Page size, 1–${limits.page_limit_max}: the most items a page holds. A page holds fewer (at least one) when its items would pass ` +
        `${limits.list_page_bytes_max / 1024 / 1024} MiB of JSON (512 KiB for webhook deliveries): has_more is then true even if fewer than limit items came back; continue at offset + count, or from the last item's id with starting_after.`,
    }),
  ),
  offset: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: limits.page_offset_max,
      default: 0,
      description: `Rows to skip (at most ${limits.page_offset_max}; use starting_after to go deeper). Order is newest first, ties by id. Must be 0 or absent with a cursor.`,
    }),
  ),
  starting_after: Type.Optional(Type.String({ ...uuidSchema, description: cursorText('of the items that follow this one (older ones, for a list newest first)') })),
  ending_before: Type.Optional(Type.String({ ...uuidSchema, description: cursorText('of the items just before this one (newer ones, for a list newest first)') })),
};

const createdBound = (op: string, subject: string) =>
  Type.Optional(
    Type.String({
      anyOf: [{ format: 'date' }, { format: 'date-time' }],
      description: `Only items ${subject} ${op} this instant: an RFC 3339 date-time with an offset, or YYYY-MM-DD meaning 00:00 UTC of that day; ${DATE_RANGE_TEXT}.`,
    }),
  );
/** `created[gte]`, `created[gt]`, `created[lte]`, `created[lt]` (AND), on the time `subject` says (default: created). */
export const createdFilters = (subject = 'created') => ({
  'created[gte]': createdBound('at or after', subject),
  'created[gt]': createdBound('after', subject),
  'created[lte]': createdBound('at or before', subject),
  'created[lt]': createdBound('before', subject),
});
/** The creation-time filters of every list whose items have a creation time. */
export const createdQuery = createdFilters();
/** The names of the created filters, in the order of createdQuery. */
export const CREATED_PARAMS = ['created[gte]', 'created[gt]', 'created[lte]', 'created[lt]'] as const;

/** The exact-match lookup of a list by its records' external id (API-DECISIONS §11), e.g. `...lookupBy('external_customer_id')`. */
export function lookupBy<const K extends string>(param: K) {
  const schema = Type.Optional(
    Type.String({ minLength: 1, maxLength: limits.external_id_length_max, description: `Only the item whose ${param} is exactly this (case-sensitive; at most one item).` }),
  );
  return { [param]: schema } as { [P in K]: typeof schema };
}

/** The query parameters every list shares: page (limit, offset, cursors) and creation-time filters. */
export const paginationQuery = { ...cursorQuery, ...createdQuery };

/** The query of a list of records with an external id: pagination, the lookup by that id, then the list's own filters. */
export function recordListQuery<const K extends string, F extends TProperties = Record<never, never>>(external: K, filters: F = {} as F) {
  return obj({ ...paginationQuery, ...lookupBy(external), ...filters });
}

export const pagination = obj(
  {
    limit: Type.Integer(),
    offset: Type.Integer(),
    count: Type.Integer({ description: 'Items on this page: at most limit, fewer when the page was cut by size.' }),
    has_more: Type.Boolean({
      description:
        'More items follow in the direction walked: after this page (request offset + count, or starting_after the last item), or, with ending_before, before it (ending_before the first item). A page cut by size (large items) says true with fewer than limit items.',
    }),
  },
  {
    description: `A page holds at most limit items, and fewer (at least one) when its items would pass ${limits.list_page_bytes_max / 1024 / 1024} MiB of JSON (512 KiB for webhook deliveries); has_more is then true. The next page starts at offset + count, or starting_after the last item's id; the previous one ending_before the first item's id.`,
  },
);

export const errorDetail = obj({ field: Type.String(), issue: Type.String(), message: Type.String() });

export const errorSchema = obj({
  error: obj({
    code: Type.String(),
    message: Type.String(),
    details: Type.Array(errorDetail),
    request_id: Type.Optional(Type.String()),
  }),
});

/** `{data: X, <name>: X}` */
export function singleEnvelope<N extends string, T extends TSchema>(nameOf: N, item: T) {
  return obj({ data: item, [nameOf]: item } as { data: T } & { [K in N]: T });
}

/** `{data: [X], <plural>: [X], pagination}` */
export function listEnvelope<N extends string, T extends TSchema>(plural: N, item: T) {
  const arr = Type.Array(item);
  return obj({ data: arr, [plural]: arr, pagination } as { data: typeof arr; pagination: typeof pagination } & { [K in N]: typeof arr });
}

/** `{type, status: 'completed'}`: the action object of an action route (post, reverse). */
export const action = <const A extends string>(type: A) => obj({ type: StringEnum([type] as const), status: StringEnum(['completed'] as const) });

/** `{data, <name>, action}`: the reply of an action route. */
export const withAction = <N extends string, T extends TSchema, A extends string>(nameOf: N, item: T, type: A) =>
  obj({ data: item, [nameOf]: item, action: action(type) } as { data: T; action: ReturnType<typeof action<A>> } & { [K in N]: T });

export const positiveCents = Type.Integer({ minimum: 1, maximum: limits.amount_cents_max });

/** Every property of `properties`, optional: the body of a PUT or PATCH whose fields left out keep their value. */
export function optionalAll<T extends TProperties>(properties: T): { [K in keyof T]: TOptional<T[K]> } {
  return Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, Type.Optional(s)])) as { [K in keyof T]: TOptional<T[K]> };
}

// ---------- shared by bills and vendor payments (posted, then maybe reversed) ----------
export const reverseBody = obj({
  reversal_reason: Type.String({ minLength: 1, maxLength: limits.description_length_max, description: 'Why the record is reversed (kept on it).' }),
});
/** The last members of a reversible record: when it was posted and reversed, and why. */
export const reversibleState = {
  memo: Nullable(Type.String()),
  posted_at: Nullable(dateTime),
  reversed_at: Nullable(dateTime),
  reversal_reason: Nullable(Type.String()),
  created_at: dateTime,
};
