import { type Static, type TString, Type } from '@sinclair/typebox';
import { limits } from '../limits';
import { cents, date, externalId, obj, uuid } from './common';

/** What invoices, estimates and bills share: a number, line items and a memo; and the currency of every amount. */
export const memo = Type.String({ maxLength: limits.description_length_max });
export const documentNumber = Type.String({ minLength: 1, maxLength: limits.number_length_max });
/** Only USD today: a service refuses others with a message saying so; the document says it as an enum. */
export const currency = Type.String({ minLength: 1, maxLength: 8, description: 'Only USD is accepted today (default USD).', 'x-openapi': { enum: ['USD'] } });

const lineItemInput = obj({
  description: Type.String({ minLength: 1, maxLength: limits.description_length_max }),
  quantity: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1_000_000_000,
    description: `Greater than 0, at most ${limits.quantity_decimals_max} decimals (judged on the number's shortest decimal spelling: 1.2345 is accepted, 1.23456 refused with 400).`,
  }),
  unit_amount_cents: cents,
});
export type LineItemInput = Static<typeof lineItemInput>;
export const lineItemsInput = Type.Array(lineItemInput, { minItems: 1, maxItems: limits.line_items_max });
export const lineItem = obj({
  description: Type.String(),
  quantity: Type.Number(),
  unit_amount_cents: Type.Integer(),
  amount_cents: Type.Integer({ description: 'quantity × unit_amount_cents, rounded half away from zero.' }),
});

/** The names a due document of `kind` (invoice, bill) with its party (customer, vendor) gives its external id, party and number. */
type DueDocumentKeys<K extends string, P extends string, Ext, Party, Num> = { [Q in `external_${K}_id`]: Ext } & { [Q in `${P}_id`]: Party } & { [Q in `${K}_number`]: Num };

/**
 * What an invoice and a bill share, as sent on create: external_<kind>_id, <party>_id, <kind>_number,
 * dates of issue and due, and line items.
 */
export function dueDocumentInput<const K extends string, const P extends string>(kind: K, party: P) {
  const keys = { [`external_${kind}_id`]: externalId, [`${party}_id`]: uuid, [`${kind}_number`]: documentNumber } as DueDocumentKeys<
    K,
    P,
    typeof externalId,
    typeof uuid,
    typeof documentNumber
  >;
  return { ...keys, issue_date: date, due_date: date, line_items: lineItemsInput };
}

/** The same as answered: the record's id first, then its external id, party, number, dates and line items. */
export function dueDocument<const K extends string, const P extends string>(kind: K, party: P) {
  const keys = { [`external_${kind}_id`]: Type.String(), [`${party}_id`]: uuid, [`${kind}_number`]: Type.String() } as DueDocumentKeys<K, P, TString, typeof uuid, TString>;
  return { id: uuid, ...keys, issue_date: date, due_date: date, line_items: Type.Array(lineItem) };
}
