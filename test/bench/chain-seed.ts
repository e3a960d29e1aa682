import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { positional, statement } from '@acct/kit';
import { ACCOUNT, type EntryToWrite, type JournalEntryDraft, type LedgerScope, type RunNamed, insertDefaultAccounts, insertJournalEntries } from '@acct/ledger';

/**
 * Seeds one long hash chain fast, through the one writer: insertJournalEntries (libs/ledger) hashes
 * each entry in Node with chain.ts and writes the entries and their lines set-based (one unnest()
 * INSERT each per call, the chain head locked and moved as for any posting), so the chain is exactly
 * the one the services write. What makes it fast is only the size of the calls: `statement` entries
 * per call (20,000) and `transaction` entries per transaction (20,000), instead of the services'
 * few entries per transaction (the writer's per-statement cost, its triggers included, is paid
 * once per 20,000 entries; the balance check still runs for every entry at COMMIT).
 *
 * The entries look like a posting service's: invoices (receivable / revenue, 2 lines), bills
 * (expenses / payable, 2 lines) and payments with a processor fee (clearing and fees / receivable,
 * 3 lines), with customer, invoice, vendor and bill ids and a memo on some lines.
 * test/integration/chain-seed.int.test.ts checks that a seeded chain verifies and that tampering
 * with it shows.
 */
export interface ChainSeedOptions {
  /** Entries per insertJournalEntries call. */
  statement?: number;
  /** Entries per transaction (a multiple of `statement` is best). */
  transaction?: number;
  /** After each transaction: the entries seeded so far. */
  onProgress?: (entries: number) => void;
}

/** The i-th seeded entry (a new id and source each time; amounts and shapes cycle). */
export function seededEntry(i: number): JournalEntryDraft & { id: string } {
  const cents = 100 + ((i * 7919) % 100_000);
  const base = { id: randomUUID(), entryDate: `2026-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`, sourceId: randomUUID() };
  switch (i % 3) {
    case 0:
      return {
        ...base,
        sourceType: 'invoice',
        memo: `invoice ${i}`,
        lines: [
          { accountCode: ACCOUNT.receivable, side: 'debit', amountCents: cents, customerId: randomUUID(), invoiceId: base.sourceId },
          { accountCode: ACCOUNT.revenue, side: 'credit', amountCents: cents, memo: 'services' },
        ],
      };
    case 1:
      return {
        ...base,
        sourceType: 'bill',
        lines: [
          { accountCode: ACCOUNT.expenses, side: 'debit', amountCents: cents, memo: `bill ${i} – “quoted”` },
          { accountCode: ACCOUNT.payable, side: 'credit', amountCents: cents, vendorId: randomUUID(), billId: base.sourceId },
        ],
      };
    default: {
      const fee = 1 + (cents % 97);
      return {
        ...base,
        sourceType: 'payment',
        memo: `payment ${i}`,
        lines: [
          { accountCode: ACCOUNT.processorClearing, side: 'debit', amountCents: cents - fee },
          { accountCode: ACCOUNT.processorFees, side: 'debit', amountCents: fee },
          { accountCode: ACCOUNT.receivable, side: 'credit', amountCents: cents, customerId: randomUUID() },
        ],
      };
    }
  }
}

/**
 * Appends `entries` entries to the chain of `scope` (creating its chart if missing) through
 * insertJournalEntries, on `pg` (a client whose search_path is the posting service's schema, in no
 * transaction). The chain may already have entries: the seeded ones follow its head.
 */
export async function seedChain(pg: Client, scope: LedgerScope, entries: number, options: ChainSeedOptions = {}): Promise<void> {
  const perStatement = options.statement ?? 20_000;
  const perTransaction = Math.max(options.transaction ?? 20_000, perStatement);
  const run: RunNamed = async <R>(s: { name: string; sql: string }, values: unknown[]) => (await pg.query({ ...statement(s.name, s.sql), values })).rows as R[];
  await insertDefaultAccounts((sql, params) => pg.query(positional(sql), params), scope.organizationId, scope.environment);
  for (let done = 0; done < entries;) {
    const end = Math.min(done + perTransaction, entries);
    await pg.query('BEGIN');
    try {
      for (let from = done; from < end; from += perStatement) {
        const batch: EntryToWrite[] = [];
        for (let i = from; i < Math.min(from + perStatement, end); i++) batch.push({ scope, entry: seededEntry(i) });
        await insertJournalEntries(run, batch);
      }
      await pg.query('COMMIT');
    } catch (e) {
      await pg.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
    done = end;
    options.onProgress?.(done);
  }
}
