import { CONSUMERS } from '@acct/contracts';
import { type EntityManager, type Orm, type Query, statement } from '@acct/kit';
import { ACCOUNT } from '@acct/ledger';
import { NIL_UUID, type PostingRows, type Row } from '../domain/projection';
import { PROJECTION_TABLES } from '../migrations';

/** The projection's writes: the consumer's, in its transaction (every write commutes: consumers/projection.ts), and the rebuild's. */

const run = (em: EntityManager, sql: string, params: unknown[]) => em.execute(sql, params, 'run');

/*
 * The set-based writes of a batch of events (consumers/projection.ts applyEvents; a single event is
 * a batch of one): one statement per table for the whole batch, values as arrays (unnest), on the
 * transaction's connection. Named: run for every batch reporting applies (bench create-bill, post-invoice).
 */

/** The values of rows as one array per column (unnest's arguments; undefined is NULL). */
const columnsOf = (rows: Row[], n: number): unknown[][] => Array.from({ length: n }, (_, i) => rows.map((r) => r[i] ?? null));

/*
 * A batch's new entries, their lines and their share of every table of totals in ONE statement (a
 * round trip and a statement per table was six; each is a wake-up of two processes on a busy
 * machine). The entries are inserted once by id; the rest only when every entry given was new
 * (`ok`: as many inserted as expected), as the rows were summed for all of them. Otherwise the
 * caller sums the rows of those it inserted (`ids`) and runs it again with no entries to insert.
 * The totals' rows come summed per key and sorted by it (sumPostingRows): unnest keeps their order.
 */
const ADD_ENTRIES = statement(
  'reporting_add_entries',
  `WITH e AS (
     INSERT INTO journal_entries (id, organization_id, environment, entry_date, source_type, source_id, memo, reverses_entry_id, posted_at, event_id)
     SELECT * FROM unnest(?::uuid[], ?::uuid[], ?::text[], ?::date[], ?::text[], ?::uuid[], ?::text[], ?::uuid[], ?::timestamptz[], ?::uuid[]) ORDER BY 1
     ON CONFLICT (id) DO NOTHING RETURNING id
   ), ok AS MATERIALIZED (
     SELECT count(*) = ?::int AS ok FROM e
   ), lines AS (
     INSERT INTO journal_lines (entry_id, line_no, organization_id, environment, entry_date, account_id, account_code, side, amount_cents, customer_id, invoice_id, vendor_id, bill_id)
     SELECT * FROM unnest(?::uuid[], ?::int[], ?::uuid[], ?::text[], ?::date[], ?::uuid[], ?::text[], ?::text[], ?::bigint[], ?::uuid[], ?::uuid[], ?::uuid[], ?::uuid[])
     WHERE (SELECT ok FROM ok)
   ), days AS (
     INSERT INTO account_days (organization_id, environment, account_code, entry_date, debit_cents, credit_cents)
     SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[], ?::date[], ?::bigint[], ?::bigint[])
     WHERE (SELECT ok FROM ok)
     ON CONFLICT (organization_id, environment, account_code, entry_date)
     DO UPDATE SET debit_cents = account_days.debit_cents + EXCLUDED.debit_cents, credit_cents = account_days.credit_cents + EXCLUDED.credit_cents
   ), open AS (
     INSERT INTO open_days (organization_id, environment, account_code, entry_date, party_id, due_date, open_cents)
     SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[], ?::date[], ?::uuid[], ?::date[], ?::bigint[])
     WHERE (SELECT ok FROM ok)
     ON CONFLICT (organization_id, environment, account_code, entry_date, party_id, due_date) DO UPDATE SET open_cents = open_days.open_cents + EXCLUDED.open_cents
   ), periods AS (
     INSERT INTO party_periods (organization_id, environment, account_code, grain, period, party_id, open_cents)
     SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[], ?::smallint[], ?::date[], ?::uuid[], ?::bigint[])
     WHERE (SELECT ok FROM ok)
     ON CONFLICT (organization_id, environment, account_code, grain, period, party_id) DO UPDATE SET open_cents = party_periods.open_cents + EXCLUDED.open_cents
   ), leads AS (
     INSERT INTO open_leads (organization_id, environment, account_code, lead_days)
     SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[], ?::int[])
     WHERE (SELECT ok FROM ok)
     ON CONFLICT (organization_id, environment, account_code) DO UPDATE SET lead_days = greatest(open_leads.lead_days, EXCLUDED.lead_days)
   )
   SELECT (SELECT ok FROM ok) AS ok, array(SELECT id::text FROM e) AS ids`,
);
/*
 * The vendor payments (vendor_payment_years, by payment year) for every new entry of a batch (in batch order: n.pos) and every entry one of
 * them reverses, in one statement, adding what applying them in turn adds. A new payment counted on
 * its arrival (no reversal from before the batch nor from earlier in it) adds its debits, or nothing
 * when a later entry of the batch reverses it (added, then taken out: its key is still written); an
 * older payment that no entry from before the batch reverses is taken out by its first reversal here.
 */
const ADD_VENDOR_PAYMENTS = statement(
  'reporting_add_vendor_payments',
  `INSERT INTO vendor_payment_years (organization_id, environment, year, vendor_id, paid_cents)
   SELECT e.organization_id, e.environment, extract(year FROM e.entry_date)::int, coalesce(l.vendor_id, '${NIL_UUID}'::uuid),
          sum(CASE WHEN n.pos IS NULL THEN -l.amount_cents
                   WHEN EXISTS (SELECT 1 FROM journal_entries r WHERE r.reverses_entry_id = e.id) THEN 0
                   ELSE l.amount_cents END)
     FROM journal_entries e
     JOIN journal_lines l ON l.entry_id = e.id AND l.account_code = '${ACCOUNT.payable}' AND l.side = 'debit'
     LEFT JOIN unnest(?::uuid[]) WITH ORDINALITY AS n (id, pos) ON n.id = e.id
    WHERE e.id IN (SELECT unnest(?::uuid[])) AND e.source_type = 'vendor_payment' AND e.reverses_entry_id IS NULL
      AND NOT EXISTS (
        SELECT 1 FROM journal_entries r LEFT JOIN unnest(?::uuid[]) WITH ORDINALITY AS m (id, pos) ON m.id = r.id
         WHERE r.reverses_entry_id = e.id AND (m.pos IS NULL OR m.pos < n.pos))
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
   ON CONFLICT (organization_id, environment, year, vendor_id) DO UPDATE SET paid_cents = vendor_payment_years.paid_cents + EXCLUDED.paid_cents`,
);
/*
 * Customers and vendors (parties), last writer wins by version, for each row of a batch in turn, in one statement: a party missing from the table
 * takes the scope and kind of its first row; its values are those of its first row of the highest
 * version, written unless the table holds an equal or higher version.
 */
const UPSERT_PARTIES = statement(
  'reporting_upsert_parties',
  `WITH t AS (
     SELECT * FROM unnest(?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::text[], ?::boolean[], ?::boolean[], ?::timestamptz[])
       WITH ORDINALITY AS t (id, organization_id, environment, kind, display_name, is_1099_eligible, w9_on_file, version, pos)
   ), first AS (
     SELECT DISTINCT ON (id) id, organization_id, environment, kind FROM t ORDER BY id, pos
   ), latest AS (
     SELECT DISTINCT ON (id) id, display_name, is_1099_eligible, w9_on_file, version FROM t ORDER BY id, version DESC, pos
   )
   INSERT INTO parties (id, organization_id, environment, kind, display_name, is_1099_eligible, w9_on_file, version)
   SELECT f.id, f.organization_id, f.environment, f.kind, l.display_name, l.is_1099_eligible, l.w9_on_file, l.version FROM first f JOIN latest l USING (id) ORDER BY f.id
   ON CONFLICT (id) DO UPDATE SET display_name = EXCLUDED.display_name, is_1099_eligible = EXCLUDED.is_1099_eligible, w9_on_file = EXCLUDED.w9_on_file, version = EXCLUDED.version
   WHERE parties.version < EXCLUDED.version`,
);

/**
 * Inserts the entries (one row per id) that are not there yet and, when every one of them was new,
 * `rows` (their lines and totals, summed: sumPostingRows) in the same statement (ADD_ENTRIES).
 * Returns the ids inserted, in lower case, and whether `rows` went in: when not, the caller adds the
 * rows of the entries inserted (addPostingRowsOfBatch).
 */
export async function addEntries(q: Query, entries: Row[], rows: PostingRows): Promise<{ inserted: Set<string>; withRows: boolean }> {
  const [result] = await q<{ ok: boolean; ids: string[] }>(ADD_ENTRIES, addEntriesValues(entries, rows));
  return { inserted: new Set((result?.ids ?? []).map((id) => id.toLowerCase())), withRows: result?.ok === true };
}

/** New entries' lines and their totals (sumPostingRows: one row per key): ADD_ENTRIES with no entry to insert. */
export async function addPostingRowsOfBatch(q: Query, r: PostingRows): Promise<void> {
  const [result] = await q<{ ok: boolean }>(ADD_ENTRIES, addEntriesValues([], r));
  if (result?.ok !== true) throw new Error('reporting_add_entries wrote no rows with no entries to insert');
}

const addEntriesValues = (entries: Row[], r: PostingRows): unknown[] => [
  ...columnsOf(entries, 10),
  entries.length,
  ...columnsOf(r.lines, 13),
  ...columnsOf(r.days, 6),
  ...columnsOf(r.open, 7),
  ...columnsOf(r.periods, 7),
  ...columnsOf(r.leads, 4),
];

/** The vendor payments of new entries (ids in batch order) and of the entries they reverse (ADD_VENDOR_PAYMENTS). */
export async function addVendorPayments(q: Query, newEntryIds: string[], reversedIds: string[]): Promise<void> {
  await q(ADD_VENDOR_PAYMENTS, [newEntryIds, [...newEntryIds, ...reversedIds], newEntryIds]);
}

/** Customers and vendors of a batch, in event order (partyRow), as an upsert of each in turn. */
export async function upsertParties(q: Query, parties: Row[]): Promise<void> {
  if (parties.length > 0) await q(UPSERT_PARTIES, columnsOf(parties, 8));
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
