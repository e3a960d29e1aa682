import { type PostingEvent, eventErrors, postingServiceOfSubject, postingSourceProblem } from '@acct/contracts';
import { accountId, isUuid } from './accounts';
import type { ChainEntry } from './chain';
import { type JournalEntryDraft, buildEntry } from './entry';
import { LedgerError } from './money';

/** The entry draft a posting event carries (what the posting service gave buildEntry). */
export function draftOfPostingEvent(e: PostingEvent): JournalEntryDraft {
  return {
    entryDate: e.entry.entry_date,
    sourceType: e.entry.source_type,
    sourceId: e.entry.source_id,
    memo: e.entry.memo ?? undefined,
    reversesEntryId: e.entry.reverses_entry_id,
    lines: e.entry.lines.map((l) => ({
      accountCode: l.account_code,
      side: l.side,
      amountCents: l.amount_cents,
      customerId: l.customer_id,
      invoiceId: l.invoice_id,
      vendorId: l.vendor_id,
      billId: l.bill_id,
    })),
  };
}

/** The entry of the posting event of an entry the books write (chainEntryOf): its wire form, lines without their memo (the inverse of draftOfPostingEvent). */
export function postingEventEntry(e: ChainEntry): PostingEvent['entry'] {
  return {
    id: e.id,
    entry_date: e.entryDate,
    source_type: e.sourceType,
    source_id: e.sourceId,
    memo: e.memo,
    reverses_entry_id: e.reversesEntryId,
    lines: e.lines.map((l) => ({
      account_id: l.accountId,
      account_code: l.accountCode,
      side: l.side,
      amount_cents: l.amountCents,
      customer_id: l.customerId,
      invoice_id: l.invoiceId,
      vendor_id: l.vendorId,
      bill_id: l.billId,
    })),
  };
}

/**
 * Why a `journal_entry.posted` event that arrived on `subject` must not reach the books, or
 * undefined when a posting service could have published it. The same rules as when posting: the
 * event's schema (ids, environment, dates in limits.date_min … date_max, positive whole amounts),
 * a subject of the service that posts its source type (postingSourceProblem), buildEntry (balanced,
 * safe amounts, at most journal_lines_max lines, accounts of the chart), and every line's
 * account_id the stable id of its code in the event's organization and environment.
 */
export function postingEventProblem(prefix: string, subject: string, payload: unknown): string | undefined {
  const errors = eventErrors('journal_entry.posted', payload);
  if (errors.length > 0) {
    const shown = errors.slice(0, 3).map((d) => `${d.field || '/'} ${d.message}`);
    return `not a valid journal_entry.posted event: ${shown.join('; ')}${errors.length > 3 ? ` (and ${errors.length - 3} more)` : ''}`;
  }
  const e = payload as PostingEvent<{ type: string }>;
  const service = postingServiceOfSubject(prefix, subject);
  if (!service) return `a journal entry on ${subject}, which is not the subject of a posting service`;
  const source = postingSourceProblem(service, e.source.type, e.entry.source_type);
  if (source) return source;
  if (!isUuid(e.id) || !isUuid(e.organization_id) || !isUuid(e.entry.id)) return 'the event id, organization id or entry id is not a uuid';
  try {
    buildEntry(draftOfPostingEvent(e));
  } catch (err) {
    if (err instanceof LedgerError) return `${err.code}: ${err.message}`;
    throw err;
  }
  for (const [i, l] of e.entry.lines.entries()) {
    const expected = accountId(e.organization_id, e.environment, l.account_code);
    if (l.account_id.toLowerCase() !== expected) {
      return `line ${i + 1}: account_id ${l.account_id} is not the account ${l.account_code} of organization ${e.organization_id} (${e.environment})`;
    }
  }
  return undefined;
}
