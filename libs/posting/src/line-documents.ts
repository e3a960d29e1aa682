import { randomUUID } from 'node:crypto';
import type { LineItemInput } from '@acct/contracts';
import { type Scope, type Scoped, columns } from '@acct/kit';
import { type LineItem, currencyOf, priceLines } from '@acct/ledger';
import { sameJson } from './create-once';

/**
 * A document with line items (invoice, estimate, bill): priced lines kept as one JSON column
 * (`line_items jsonb`, there is no line table), their total, an issue date, a currency and a memo.
 * Its own fields (external id, party, number, due or expiry date, status, ...) come beside these.
 */
export interface LineDocument extends Scoped {
  issueDate: string;
  currency: string;
  memo: string | null;
  lineItems: LineItem[];
  totalCents: number;
}

/** The EntitySchema properties every document with line items has beside the scoped ones (scopedEntity adds those). */
export function lineDocumentColumns() {
  return columns({ issueDate: 'date', currency: 'text', memo: 'text?', lineItems: 'json', totalCents: 'money' });
}

/**
 * The DDL columns of a document with line items (those lineDocumentColumns maps), as the migrations
 * of invoices, estimates and bills write them: the issue date, the document's own date (`ownDate`,
 * its due or expiry date with its check), currency, memo, the lines, the document's own columns that
 * stand before the total (`beforeTotal`), then the total. No trailing comma. FROZEN: shipped
 * migrations run this text, pinned (whitespace aside) in test/deploy/migrations.lock.json.
 */
export function lineDocumentDdl(d: { ownDate: string; beforeTotal?: readonly string[] }): string {
  return [
    'issue_date date NOT NULL',
    d.ownDate,
    'currency text NOT NULL',
    'memo text',
    'line_items jsonb NOT NULL',
    ...(d.beforeTotal ?? []),
    'total_cents bigint NOT NULL CHECK (total_cents >= 0)',
  ].join(',\n');
}

/** What every create body of a document with line items says. */
export interface LineDocumentBody {
  currency?: string;
  memo?: string | null;
  line_items: LineItemInput[];
}

/**
 * A new document of the scope from its create body: the lines priced (400 naming the line), then
 * the document's dates checked by `dates` (which returns them with the issue date), then the
 * currency (USD only) — in that order, so the first problem answered stays the same.
 */
export function newLineDocument<T extends { issueDate: string }>(scope: Scope, b: LineDocumentBody, dates: () => T): Omit<LineDocument, 'issueDate'> & T {
  const { lines, totalCents } = priceLines(b.line_items);
  const own = dates();
  return { id: randomUUID(), ...scope, ...own, currency: currencyOf(b.currency), memo: b.memo ?? null, lineItems: lines, totalCents, createdAt: new Date() };
}

/** The lines as a create body gives them (what a PATCH prices again when it changes the document). */
export function lineItemsInputOf(lines: readonly LineItem[]): LineItemInput[] {
  return lines.map((l) => ({ description: l.description, quantity: l.quantity, unit_amount_cents: l.unit_amount_cents }));
}

/** The lines as the API shows them (line_items of a document's dto). */
export function lineItemsDto(lines: readonly LineItem[]): LineItem[] {
  return lines.map((l) => ({ description: l.description, quantity: l.quantity, unit_amount_cents: l.unit_amount_cents, amount_cents: l.amount_cents }));
}

type DocumentContent = Pick<LineDocument, 'issueDate' | 'currency' | 'memo' | 'lineItems'>;

/** The fields every document's create body shares, as the document holds them (the lines as given: their amounts are derived). */
export function lineDocumentContent(d: DocumentContent): { issue_date: string; currency: string; memo: string | null; line_items: LineItemInput[] } {
  return { issue_date: d.issueDate, currency: d.currency, memo: d.memo, line_items: lineItemsInputOf(d.lineItems) };
}

/**
 * The content comparer of a document's retry-safe create (API-DECISIONS §1): the same external id
 * with the same content is a replay, anything else a 409. Content is what the caller sent: the
 * shared fields, the lines as given (their amounts are derived), and the document's own fields
 * (`own`, wire names; the requested status is never content).
 */
export function sameDocumentContent<D extends DocumentContent>(own: (d: D) => Record<string, unknown>): (a: D, b: D) => boolean {
  const content = (d: D) => ({ ...lineDocumentContent(d), ...own(d) });
  return (a, b) => sameJson(content(a), content(b));
}
