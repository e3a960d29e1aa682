import { CONSUMERS } from '@acct/contracts';
import type { EntityManager, Orm } from '@acct/kit';
import { ACCOUNT } from '@acct/ledger';
import { NIL_UUID, type PostingRows, type Row } from '../domain/projection';
import { PROJECTION_TABLES } from '../migrations';

/** The projection's writes: the consumer's, in its transaction (every write commutes: consumers/projection.ts), and the rebuild's. */

const run = (em: EntityManager, sql: string, params: unknown[]) => em.execute(sql, params, 'run');
/** `(?, ?), (?, ?)`: the placeholders of a multi-row VALUES list. */
const rowsOf = (rows: Row[]): string => rows.map((r) => `(${r.map(() => '?').join(', ')})`).join(', ');

/** Inserts a posting's entry once by id; false when it is there already (the same entry under another event id). */
export async function insertEntry(em: EntityManager, entry: Row): Promise<boolean> {
  const inserted = (await run(
    em,
    `INSERT INTO journal_entries (id, organization_id, environment, entry_date, source_type, source_id, memo, reverses_entry_id, posted_at, event_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    entry,
  )) as { affectedRows?: number };
  return inserted.affectedRows !== 0;
}

/** A new entry's lines and its share of the tables of totals: one multi-row statement per table (none for no rows). */
export async function addPostingRows(em: EntityManager, r: PostingRows): Promise<void> {
  if (r.lines.length > 0) {
    await run(
      em,
      `INSERT INTO journal_lines (entry_id, line_no, organization_id, environment, entry_date, account_id, account_code, side, amount_cents, customer_id, invoice_id, vendor_id, bill_id)
       VALUES ${rowsOf(r.lines)}`,
      r.lines.flat(),
    );
  }
  if (r.days.length > 0) {
    await run(
      em,
      `INSERT INTO account_days (organization_id, environment, account_code, entry_date, debit_cents, credit_cents) VALUES ${rowsOf(r.days)}
     ON CONFLICT (organization_id, environment, account_code, entry_date)
     DO UPDATE SET debit_cents = account_days.debit_cents + EXCLUDED.debit_cents, credit_cents = account_days.credit_cents + EXCLUDED.credit_cents`,
      r.days.flat(),
    );
  }
  if (r.open.length > 0) {
    await run(
      em,
      `INSERT INTO open_days (organization_id, environment, account_code, entry_date, party_id, due_date, open_cents) VALUES ${rowsOf(r.open)}
       ON CONFLICT (organization_id, environment, account_code, entry_date, party_id, due_date)
       DO UPDATE SET open_cents = open_days.open_cents + EXCLUDED.open_cents`,
      r.open.flat(),
    );
    await run(
      em,
      `INSERT INTO party_periods (organization_id, environment, account_code, grain, period, party_id, open_cents) VALUES ${rowsOf(r.periods)}
       ON CONFLICT (organization_id, environment, account_code, grain, period, party_id) DO UPDATE SET open_cents = party_periods.open_cents + EXCLUDED.open_cents`,
      r.periods.flat(),
    );
    if (r.leads.length > 0) {
      await run(
        em,
        `INSERT INTO open_leads (organization_id, environment, account_code, lead_days) VALUES ${rowsOf(r.leads)}
         ON CONFLICT (organization_id, environment, account_code) DO UPDATE SET lead_days = greatest(open_leads.lead_days, EXCLUDED.lead_days)`,
        r.leads.flat(),
      );
    }
  }
}

/**
 * Adds (sign 1) or takes out (sign -1) the A/P debits of one entry in vendor_payment_years (its payment date's year) when it is
 * a vendor payment that reverses nothing: added when it arrives and no entry reverses it yet, taken
 * out when its first reversal arrives after it. Either order ends with the same totals.
 */
export async function addVendorPayment(em: EntityManager, entryId: string, sign: 1 | -1): Promise<void> {
  const reversals =
    sign === 1 ? `NOT EXISTS (SELECT 1 FROM journal_entries r WHERE r.reverses_entry_id = e.id)` : `(SELECT count(*) FROM journal_entries r WHERE r.reverses_entry_id = e.id) = 1`;
  await run(
    em,
    `INSERT INTO vendor_payment_years (organization_id, environment, year, vendor_id, paid_cents)
    SELECT e.organization_id, e.environment, extract(year FROM e.entry_date)::int, coalesce(l.vendor_id, '${NIL_UUID}'::uuid), ${sign === 1 ? '' : '-'}sum(l.amount_cents)
      FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id AND l.account_code = '${ACCOUNT.payable}' AND l.side = 'debit'
     WHERE e.id = ? AND e.source_type = 'vendor_payment' AND e.reverses_entry_id IS NULL AND ${reversals}
     GROUP BY 1, 2, 3, 4
    ON CONFLICT (organization_id, environment, year, vendor_id) DO UPDATE SET paid_cents = vendor_payment_years.paid_cents + EXCLUDED.paid_cents`,
    [entryId],
  );
}

/** A customer or vendor, last writer wins by version. */
export async function upsertParty(em: EntityManager, party: Row): Promise<void> {
  await run(
    em,
    `INSERT INTO parties (id, organization_id, environment, kind, display_name, is_1099_eligible, w9_on_file, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET display_name = EXCLUDED.display_name, is_1099_eligible = EXCLUDED.is_1099_eligible, w9_on_file = EXCLUDED.w9_on_file, version = EXCLUDED.version
     WHERE parties.version < EXCLUDED.version`,
    party,
  );
}

/* The rebuild's. */

/**
 * Empties the projection and the consumer's record of what it applied (one transaction: em's).
 * consumed_events is locked first, as every applier's claim takes it first: appliers of other
 * replicas wait for the commit (then claim afresh) instead of deadlocking with the TRUNCATE.
 */
export async function emptyProjection(em: EntityManager): Promise<void> {
  await run(em, `LOCK TABLE consumed_events IN ACCESS EXCLUSIVE MODE`, []);
  await run(em, `TRUNCATE ${PROJECTION_TABLES.join(', ')}`, []);
  await run(em, `DELETE FROM consumed_events WHERE consumer = ?`, [CONSUMERS.reportingPostings]);
}

/** How many events the consumer has applied (consumed_events). */
export async function appliedCount(orm: Orm): Promise<number> {
  const [row] = await orm.em.fork().getConnection().execute<{ n: number }[]>(`SELECT count(*)::int AS n FROM consumed_events WHERE consumer = ?`, [CONSUMERS.reportingPostings]);
  return Number(row?.n ?? 0);
}
