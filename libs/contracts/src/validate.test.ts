import type { ErrorObject } from 'ajv';
import { canonicalUuids, compileBody, compileQuery, queryIntegerDetails, toDetails } from './validate';
import { Optional, Type } from '@sinclair/typebox';
import { StringEnum, obj, uuid, date, email, name, paginationQuery } from './schemas/common';
import { customerCreateBody, customerListQuery } from './api/customers';
import { paymentCreateBody } from './api/payments';
import { limits } from './limits';
import * as schemas from './schemas/index';

const bodySchema = obj({ name, email: Optional(email), id: Optional(uuid), due: Optional(date), tags: Optional(Type.Array(Type.String(), { maxItems: 2 })) });

function bodyDetails(schema: Record<string, unknown>, input: unknown) {
  const validate = compileBody(schema);
  const ok = validate(input);
  return { ok, details: toDetails(validate.errors) };
}

describe('toDetails', () => {
  it('maps a missing required property to issue required at its JSON pointer', () => {
    const { ok, details } = bodyDetails(bodySchema, {});
    expect(ok).toBe(false);
    expect(details).toEqual([{ field: '/name', issue: 'required', message: '/name is required.' }]);
  });

  it('maps an unknown property to unknown_field at its JSON pointer', () => {
    const { ok, details } = bodyDetails(bodySchema, { name: 'x', nam: 'typo' });
    expect(ok).toBe(false);
    expect(details).toEqual([{ field: '/nam', issue: 'unknown_field', message: '/nam is not a known field.' }]);
  });

  it.each([
    ['uuid', { name: 'x', id: 'not-a-uuid' }, '/id'],
    ['date', { name: 'x', due: '2026-13-01' }, '/due'],
    ['email', { name: 'x', email: 'not an email' }, '/email'],
  ])('maps a bad %s to invalid_format', (format, input, field) => {
    const { details } = bodyDetails(bodySchema, input);
    expect(details).toEqual([{ field, issue: 'invalid_format', message: `${field} must be a valid ${format}.` }]);
  });

  it('maps maxLength to too_long', () => {
    const { details } = bodyDetails(bodySchema, { name: 'x'.repeat(limits.name_length_max + 1) });
    expect(details).toHaveLength(1);
    expect(details[0]).toMatchObject({ field: '/name', issue: 'too_long' });
    expect(details[0]?.message.startsWith('/name ')).toBe(true);
  });

  it('maps other keywords to their stable issues', () => {
    expect(bodyDetails(bodySchema, { name: 42 }).details[0]).toMatchObject({ field: '/name', issue: 'invalid_type' });
    expect(bodyDetails(bodySchema, { name: '' }).details[0]).toMatchObject({ field: '/name', issue: 'too_short' });
    expect(bodyDetails(bodySchema, { name: 'x', tags: ['a', 'b', 'c'] }).details[0]).toMatchObject({ field: '/tags', issue: 'too_many' });
    expect(bodyDetails(bodySchema, { name: 'x', tags: [1] }).details[0]).toMatchObject({ field: '/tags/0', issue: 'invalid_type' });
    const en = obj({ s: Optional(StringEnum(['a'])), n: Optional(Type.Integer({ minimum: 1 })) });
    expect(bodyDetails(en, { s: 'b' }).details[0]).toMatchObject({ field: '/s', issue: 'invalid_value' });
    expect(bodyDetails(en, { n: 0 }).details[0]).toMatchObject({ field: '/n', issue: 'out_of_range' });
  });

  it('names a root-level error with "/"', () => {
    const { details } = bodyDetails(bodySchema, 'not an object');
    expect(details[0]).toMatchObject({ field: '/', issue: 'invalid_type' });
  });

  it('reports every problem at once (allErrors) in one pass', () => {
    const { details } = bodyDetails(bodySchema, { id: 'x', extra: 1 });
    expect(details.map((d) => `${d.field}:${d.issue}`).sort()).toEqual(['/extra:unknown_field', '/id:invalid_format', '/name:required']);
  });

  it('uses parameter names without a leading slash when asQuery is true', () => {
    const validate = compileQuery(customerListQuery);
    expect(validate({ limit: 'abc', colour: 'red' })).toBe(false);
    const details = toDetails(validate.errors, true);
    const fields = details.map((d) => d.field).sort();
    expect(fields).toEqual(['colour', 'limit']);
    expect(details.find((d) => d.field === 'colour')).toEqual({ field: 'colour', issue: 'unknown_field', message: 'colour is not a known field.' });
    expect(details.find((d) => d.field === 'limit')?.issue).toBe('invalid_type');
    const required = toDetails([{ keyword: 'required', instancePath: '', schemaPath: '#/required', params: { missingProperty: 'from' } } as ErrorObject], true);
    expect(required).toEqual([{ field: 'from', issue: 'required', message: 'from is required.' }]);
  });

  it('drops duplicate field+issue pairs and unknown keywords become invalid', () => {
    const e = (keyword: string, instancePath: string, params: Record<string, unknown> = {}): ErrorObject =>
      ({ keyword, instancePath, schemaPath: '#', params, message: 'bad' }) as ErrorObject;
    const details = toDetails([e('minimum', '/n'), e('maximum', '/n'), e('weird', '/w')]);
    expect(details).toEqual([
      { field: '/n', issue: 'out_of_range', message: '/n bad.' },
      { field: '/w', issue: 'invalid', message: '/w bad.' },
    ]);
  });

  it('returns [] for null or undefined errors', () => {
    expect(toDetails(null)).toEqual([]);
    expect(toDetails(undefined)).toEqual([]);
  });
});

describe('toDetails of an anyOf (received_at: a date or a date-time)', () => {
  const v = compileBody(paymentCreateBody);
  const body = (received_at: unknown) => ({ external_payment_id: 'p-1', invoice_id: '3f1c2a4e-8b7d-4c6e-9f0a-1b2c3d4e5f60', amount_cents: 5, received_at });

  it.each(['nope', '2026-02-30', '2026-03-01T25:00:00Z'])('names %p once, with both forms it may take', (received_at) => {
    expect(v(body(received_at))).toBe(false);
    expect(toDetails(v.errors)).toEqual([{ field: '/received_at', issue: 'invalid_format', message: '/received_at must be a valid date or date-time.' }]);
  });

  it('accepts either form', () => {
    expect(v(body('2026-03-01'))).toBe(true);
    expect(v(body('2026-03-01T12:00:00+02:00'))).toBe(true);
  });

  it('merges failed type branches, and says something plain when the branches differ', () => {
    const e = (keyword: string, schemaPath: string, params: Record<string, unknown>, message?: string) =>
      ({ keyword, instancePath: '/x', schemaPath, params, message }) as ErrorObject;
    const types = [
      e('type', '#/properties/x/anyOf/0/type', { type: 'string' }),
      e('type', '#/properties/x/anyOf/1/type', { type: 'null' }),
      e('anyOf', '#/properties/x/anyOf', {}, 'must match a schema in anyOf'),
    ];
    expect(toDetails(types)).toEqual([{ field: '/x', issue: 'invalid_type', message: '/x must be string or null.' }]);
    const mixed = [
      e('type', '#/properties/x/oneOf/0/type', { type: 'string' }),
      e('minimum', '#/properties/x/oneOf/1/minimum', {}, 'must be >= 1'),
      e('oneOf', '#/properties/x/oneOf', {}, 'must match exactly one schema in oneOf'),
    ];
    expect(toDetails(mixed)).toEqual([{ field: '/x', issue: 'invalid', message: '/x does not take any of the forms it allows.' }]);
  });
});

describe('compileBody', () => {
  const dateOnly = compileBody(obj({ d: date }));

  it.each(['2024-02-29', '2026-01-31', '2026-12-31'])('accepts the real date %s', (d) => {
    expect(dateOnly({ d })).toBe(true);
  });

  it.each(['2026-02-30', '2025-02-29', '2026-04-31', '2026-13-01', '2026-1-01', '26-01-01', '2026-01-01T00:00:00Z', ''])('rejects %p as a date', (d) => {
    expect(dateOnly({ d })).toBe(false);
    expect(toDetails(dateOnly.errors)[0]).toMatchObject({ field: '/d', issue: 'invalid_format' });
  });

  it('does not coerce types in a body', () => {
    const v = compileBody(obj({ n: Optional(Type.Integer()) }));
    const input = { n: '25' };
    expect(v(input)).toBe(false);
    expect(input.n).toBe('25');
  });

  it('does not fill defaults into a body', () => {
    const v = compileBody(obj({ ...paginationQuery }));
    const input: Record<string, unknown> = {};
    expect(v(input)).toBe(true);
    expect(input).toEqual({});
  });

  it('accepts a valid customer create body and rejects a scope field as unknown', () => {
    const v = compileBody(customerCreateBody);
    expect(v({ external_customer_id: 'c-1', name: 'Acme', email: 'billing@acme.test' })).toBe(true);
    expect(v({ external_customer_id: 'c-1', name: 'Acme', organization_id: 'x' })).toBe(false);
    expect(toDetails(v.errors)).toEqual([{ field: '/organization_id', issue: 'unknown_field', message: '/organization_id is not a known field.' }]);
  });

  it('checks uuid and email formats', () => {
    const v = compileBody(obj({ id: uuid, email }));
    expect(v({ id: '3f1c2a4e-8b7d-4c6e-9f0a-1b2c3d4e5f60', email: 'a@b.co' })).toBe(true);
    expect(v({ id: '3f1c2a4e8b7d4c6e9f0a1b2c3d4e5f60' })).toBe(false);
  });
});

describe('compileQuery', () => {
  it('coerces "25" to 25', () => {
    const v = compileQuery(customerListQuery);
    const q: Record<string, unknown> = { limit: '25', offset: '50' };
    expect(v(q)).toBe(true);
    expect(q).toEqual({ limit: 25, offset: 50 });
  });

  it('applies defaults for missing parameters', () => {
    const v = compileQuery(customerListQuery);
    const q: Record<string, unknown> = {};
    expect(v(q)).toBe(true);
    expect(q).toEqual({ limit: limits.page_limit_default, offset: 0 });
  });

  it('still enforces ranges after coercion', () => {
    const v = compileQuery(customerListQuery);
    expect(v({ limit: String(limits.page_limit_max + 1) })).toBe(false);
    expect(toDetails(v.errors, true)).toEqual([expect.objectContaining({ field: 'limit', issue: 'out_of_range' })]);
    expect(v({ limit: '0' })).toBe(false);
    expect(v({ limit: '2.5' })).toBe(false);
    expect(v({ offset: '-1' })).toBe(false);
  });
});

describe('queryIntegerDetails', () => {
  const schema = obj({ ...paginationQuery, shift: Optional(Type.Integer({ minimum: -10 })), name: Optional(name) });

  it.each(['0', '1', '25', '100000'])('takes %p', (v) => {
    expect(queryIntegerDetails(schema, { limit: v, offset: v })).toEqual([]);
  });

  it.each(['0x10', '  5', '5 ', '1e1', '+5', '-5', '05', '5.0', '', '٣'])('refuses %p for a non-negative integer', (v) => {
    expect(queryIntegerDetails(schema, { limit: v })).toEqual([{ field: 'limit', issue: 'invalid_type', message: expect.stringContaining('decimal') }]);
  });

  it('allows a sign only where the field may be negative, and leaves other fields to the validator', () => {
    expect(queryIntegerDetails(schema, { shift: '-5', name: '0x10' })).toEqual([]);
    expect(queryIntegerDetails(schema, { shift: '-05' })).toHaveLength(1);
    expect(queryIntegerDetails(schema, { shift: '-0' })).toHaveLength(1);
  });
});

describe('estimate status body', () => {
  const validate = compileBody(schemas.receivables.estimateStatusBody);
  it.each(['draft', 'sent', 'accepted', 'declined', 'expired', 'converted'])('takes %s: whether the move is allowed is the domain rule (409)', (status) => {
    expect(validate({ status })).toBe(true);
  });
  it.each(['bogus', '', 'Sent'])('refuses %p', (status) => {
    expect(validate({ status })).toBe(false);
  });
});

describe('uuids: one canonical form', () => {
  const id = '0b7e3c1a-5f2d-4c8e-9a1b-2c3d4e5f6a7b';
  const check = compileBody(obj({ id: uuid }));
  it.each([`urn:uuid:${id}`, `URN:UUID:${id}`, `{${id}}`, id.replace(/-/g, ''), ` ${id}`, `${id} `, `${id}\n`, `${id}0`])('refuses %j', (s) => {
    expect(check({ id: s })).toBe(false);
  });
  it('accepts either case', () => {
    expect(check({ id })).toBe(true);
    expect(check({ id: id.toUpperCase() })).toBe(true);
  });
  it('lower-cases every uuid the schema names, nested, in arrays and in nullable branches, and nothing else', () => {
    const schema = obj({
      vendor_id: uuid,
      note: Type.String(),
      parent: Type.Union([uuid, Type.Null()]),
      allocations: Type.Array(obj({ bill_id: uuid, memo: Type.String() })),
    });
    const data = { vendor_id: id.toUpperCase(), note: 'KEEP', parent: id.toUpperCase(), allocations: [{ bill_id: id.toUpperCase(), memo: id.toUpperCase() }] };
    expect(compileBody(schema)(data)).toBe(true);
    canonicalUuids(schema, data);
    expect(data).toEqual({ vendor_id: id, note: 'KEEP', parent: id, allocations: [{ bill_id: id, memo: id.toUpperCase() }] });
  });
});
