import { createHash } from 'node:crypto';
import { type Side, accountId } from './accounts';
import type { LedgerScope } from './ddl';
import type { JournalEntryDraft } from './entry';

/**
 * The tamper-evident journal (API-DECISIONS §12): each entry's hash is SHA-256 over the previous
 * entry's hash (of the same organization, environment and posting service) and the entry's
 * canonical content with its lines. The one definition of that content: the writer
 * (insertJournalEntries) and the verifier (verifyJournalChain) both hash through here.
 */

/** The previous hash of a chain's first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** One line as the chain sees it, in line order. */
export interface ChainLine {
  accountId: string;
  accountCode: string;
  side: Side;
  amountCents: number;
  customerId: string | null;
  invoiceId: string | null;
  vendorId: string | null;
  billId: string | null;
  memo: string | null;
}

/** One entry as the chain sees it: what it records, never when or by which transaction it was written. */
export interface ChainEntry {
  id: string;
  /** YYYY-MM-DD. */
  entryDate: string;
  sourceType: string;
  sourceId: string;
  memo: string | null;
  reversesEntryId: string | null;
  lines: readonly ChainLine[];
}

/** What the chain hashes of an entry the writer holds (a checked draft). */
export function chainEntryOf(scope: LedgerScope, id: string, v: JournalEntryDraft): ChainEntry {
  return {
    id,
    entryDate: v.entryDate,
    sourceType: v.sourceType,
    sourceId: v.sourceId,
    memo: v.memo ?? null,
    reversesEntryId: v.reversesEntryId ?? null,
    lines: v.lines.map((x): ChainLine => ({
      accountId: accountId(scope.organizationId, scope.environment, x.accountCode),
      accountCode: x.accountCode,
      side: x.side,
      amountCents: x.amountCents,
      customerId: x.customerId ?? null,
      invoiceId: x.invoiceId ?? null,
      vendorId: x.vendorId ?? null,
      billId: x.billId ?? null,
      memo: x.memo ?? null,
    })),
  };
}

/**
 * The canonical text of an entry: a JSON array of its fields in a fixed order, then its lines in
 * order (each an array in a fixed order). Version-tagged, so a later form can coexist. Ids are
 * lower-case (as Postgres prints uuids); amounts are whole cents.
 */
export function canonicalEntry(e: ChainEntry): string {
  return JSON.stringify([
    'je1',
    e.id.toLowerCase(),
    e.entryDate,
    e.sourceType,
    e.sourceId.toLowerCase(),
    e.memo,
    e.reversesEntryId?.toLowerCase() ?? null,
    e.lines.map((l) => [
      l.accountId.toLowerCase(),
      l.accountCode,
      l.side,
      l.amountCents,
      l.customerId?.toLowerCase() ?? null,
      l.invoiceId?.toLowerCase() ?? null,
      l.vendorId?.toLowerCase() ?? null,
      l.billId?.toLowerCase() ?? null,
      l.memo,
    ]),
  ]);
}

/** The entry's hash (64 lower-case hex digits): SHA-256 of the previous hash, a newline, and the canonical entry. */
export function chainHash(previousHash: string, entry: ChainEntry): string {
  return createHash('sha256').update(previousHash).update('\n').update(canonicalEntry(entry)).digest('hex');
}

export const HASH_PATTERN = /^[0-9a-f]{64}$/;
