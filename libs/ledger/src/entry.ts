import { DEFAULT_CHART, isUuid, type Side } from './accounts';
import { isCalendarDate } from './dates';
import { LedgerError, sumCents } from './money';

export interface JournalLine {
  accountCode: string;
  side: Side;
  amountCents: number;
  customerId?: string | null;
  invoiceId?: string | null;
  vendorId?: string | null;
  billId?: string | null;
  memo?: string;
}

export interface JournalEntryDraft {
  /** YYYY-MM-DD, the accounting date. */
  entryDate: string;
  /** What posted it, e.g. 'invoice', 'payment'; with sourceId it finds an entry again. */
  sourceType: string;
  sourceId: string;
  memo?: string;
  lines: JournalLine[];
  reversesEntryId?: string | null;
}

/** The dimensions a line may carry (customer and invoice, vendor and bill). */
export type LineDims = Pick<JournalLine, 'customerId' | 'invoiceId' | 'vendorId' | 'billId'>;

/** An entry of two lines for one amount: Dr `debit` / Cr `credit`, both lines carrying `dims`. */
export function transferEntry(head: Omit<JournalEntryDraft, 'lines'>, t: { debit: string; credit: string; amountCents: number; dims?: LineDims }): JournalEntryDraft {
  return {
    ...head,
    lines: [
      { accountCode: t.debit, side: 'debit', amountCents: t.amountCents, ...t.dims },
      { accountCode: t.credit, side: 'credit', amountCents: t.amountCents, ...t.dims },
    ],
  };
}

export interface EntryOptions {
  /** Account codes a line may use; the default chart when omitted. */
  accountCodes?: Iterable<string>;
}

/**
 * Bounds one entry; also keeps the writer's multi-row insert far below Postgres' 65535 bind
 * parameters (11 per line).
 */
export const journal_lines_max = 1000;

function optionalUuid(v: string | null | undefined, what: string): void {
  if (v != null && !isUuid(v)) throw new LedgerError('bad_line', `${what} ${v} is not a uuid`);
}

export function totals(lines: readonly JournalLine[]): { debitCents: number; creditCents: number } {
  return {
    debitCents: sumCents(lines.filter((l) => l.side === 'debit').map((l) => l.amountCents)),
    creditCents: sumCents(lines.filter((l) => l.side === 'credit').map((l) => l.amountCents)),
  };
}

/**
 * Validates a draft and returns a copy without its zero-amount lines. Throws LedgerError when the
 * entry could not be posted: no non-zero line, a bad amount, an unknown account, or debits ≠ credits.
 */
export function buildEntry(draft: JournalEntryDraft, options: EntryOptions = {}): JournalEntryDraft {
  if (!isCalendarDate(draft.entryDate)) throw new LedgerError('bad_entry', `entry date ${draft.entryDate} is not a YYYY-MM-DD date`);
  if (!draft.sourceType) throw new LedgerError('bad_entry', 'source type is required');
  if (!isUuid(draft.sourceId)) throw new LedgerError('bad_entry', `source id ${draft.sourceId} is not a uuid`);
  if (draft.reversesEntryId != null && !isUuid(draft.reversesEntryId)) {
    throw new LedgerError('bad_entry', `reversed entry id ${draft.reversesEntryId} is not a uuid`);
  }
  const allowed = new Set(options.accountCodes ?? DEFAULT_CHART.map((a) => a.code));

  const lines: JournalLine[] = [];
  for (const [i, line] of draft.lines.entries()) {
    // A zero line (e.g. a payout without a fee) moves nothing, and the database refuses amount 0.
    if (line.amountCents === 0) continue;
    if (!Number.isSafeInteger(line.amountCents) || line.amountCents < 0) {
      throw new LedgerError('bad_amount', `line ${i + 1}: amount ${line.amountCents} must be a positive whole number of cents`);
    }
    if (line.side !== 'debit' && line.side !== 'credit') throw new LedgerError('bad_line', `line ${i + 1}: side must be debit or credit`);
    if (!allowed.has(line.accountCode)) throw new LedgerError('unknown_account', `line ${i + 1}: unknown account ${line.accountCode}`);
    optionalUuid(line.customerId, 'customer id');
    optionalUuid(line.invoiceId, 'invoice id');
    optionalUuid(line.vendorId, 'vendor id');
    optionalUuid(line.billId, 'bill id');
    lines.push({ ...line });
  }
  if (lines.length === 0) throw new LedgerError('empty', 'a journal entry needs at least one non-zero line');
  if (lines.length > journal_lines_max) throw new LedgerError('too_many_lines', `a journal entry has at most ${journal_lines_max} lines`);

  const { debitCents, creditCents } = totals(lines);
  if (debitCents !== creditCents) {
    throw new LedgerError('unbalanced', `debits ${debitCents} ≠ credits ${creditCents}`);
  }
  return { ...draft, lines };
}

/**
 * The correcting entry for `entry`: every line mirrored (debit ↔ credit, same account and
 * dimensions), pointing back at the entry it reverses. Entries are never changed or deleted.
 */
export function reversalOf(
  entry: { id: string; sourceType: string; sourceId: string; lines: readonly JournalLine[] },
  entryDate: string,
  options: EntryOptions & { memo?: string } = {},
): JournalEntryDraft {
  return buildEntry(
    {
      entryDate,
      sourceType: entry.sourceType,
      sourceId: entry.sourceId,
      memo: options.memo ?? `Reversal of journal entry ${entry.id}`,
      lines: entry.lines.map((l) => ({ ...l, side: l.side === 'debit' ? 'credit' : 'debit' })),
      reversesEntryId: entry.id,
    },
    options,
  );
}
