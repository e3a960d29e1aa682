import { limits } from '../limits';

/** A JSON Schema (draft 2020-12 subset that ajv and OpenAPI 3.1 both read). */
export type JsonSchema = Record<string, unknown>;

export const uuid = { type: 'string', format: 'uuid' } as const;
export const date = { type: 'string', format: 'date', description: 'Calendar date, YYYY-MM-DD.' } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const cents = { type: 'integer', minimum: 0, maximum: limits.amount_cents_max } as const;
export const externalId = { type: 'string', minLength: 1, maxLength: limits.external_id_length_max } as const;
export const name = { type: 'string', minLength: 1, maxLength: limits.name_length_max } as const;
export const email = { type: 'string', format: 'email', maxLength: limits.email_length_max } as const;

export function obj(properties: Record<string, JsonSchema>, required: string[] = [], extra: JsonSchema = {}): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false, ...extra };
}

export const idParams = obj({ id: uuid }, ['id']);

export const paginationQuery = {
  limit: {
    type: 'integer',
    minimum: 1,
    maximum: limits.page_limit_max,
    default: limits.page_limit_default,
    description: `Page size, 1–${limits.page_limit_max}.`,
  },
  offset: {
    type: 'integer',
    minimum: 0,
    maximum: limits.page_offset_max,
    default: 0,
    description: 'Rows to skip. Order is newest first, ties by id.',
  },
} as const;

export const pagination = obj(
  {
    limit: { type: 'integer' },
    offset: { type: 'integer' },
    count: { type: 'integer' },
    has_more: { type: 'boolean' },
  },
  ['limit', 'offset', 'count', 'has_more'],
);

export const errorSchema = obj(
  {
    error: obj(
      {
        code: { type: 'string' },
        message: { type: 'string' },
        details: {
          type: 'array',
          items: obj(
            { field: { type: 'string' }, issue: { type: 'string' }, message: { type: 'string' } },
            ['field', 'issue', 'message'],
          ),
        },
        request_id: { type: 'string' },
      },
      ['code', 'message', 'details'],
    ),
  },
  ['error'],
);

/** `{data: X, <name>: X}` */
export function singleEnvelope(nameOf: string, item: JsonSchema): JsonSchema {
  return obj({ data: item, [nameOf]: item }, ['data', nameOf]);
}

/** `{data: [X], <plural>: [X], pagination}` */
export function listEnvelope(plural: string, item: JsonSchema): JsonSchema {
  const arr = { type: 'array', items: item };
  return obj({ data: arr, [plural]: arr, pagination }, ['data', plural, 'pagination']);
}
