import pg from 'pg';
import { positional } from '@acct/kit';
import { reportQueries, type ReportQuery } from '@acct/reporting/dist/queries/reports';

/**
 * Seeds the reporting projection straight (no events): `lines` journal lines for one organization's
 * test environment, two per entry, in four kinds that cycle: an invoice (Dr 1100 / Cr 4000), a bill
 * (Dr 5000 / Cr 2000), a payment of half the invoice two entries before (Dr 1000 / Cr 1100) and a
 * vendor payment of half the bill two before (Dr 2000 / Cr 1000), over 1000 customers or vendors and
 * 1000 days from 2024-01-01 (each party in turn on every day, so no two documents share a party and
 * day: the worst case for the open amounts per party, due date and day); documents are due 30 days
 * after issue; with the parties.
 */
export async function seedReportingLines(databaseUrl: string, organizationId: string, accountIds: Record<string, string>, lines: number): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const started = Date.now();
  try {
    const entries = Math.floor(lines / 2);
    const acc = (code: string) => `'${accountIds[code]}'::uuid`;
    await client.query('BEGIN');
    await client.query(`SET LOCAL search_path = reporting`);
    await client.query(`
      CREATE TEMP TABLE seed ON COMMIT DROP AS
      SELECT g, g % 4 AS kind, gen_random_uuid() AS id,
             md5('doc' || CASE WHEN g % 4 < 2 THEN g ELSE g - 2 END)::uuid AS doc,
             md5('party' || ((g / 4000) % 1000) || CASE WHEN g % 2 = 0 THEN 'c' ELSE 'v' END)::uuid AS party,
             DATE '2024-01-01' + ((g / 4) % 1000)::int AS d,
             (1000 + (g / 4) % 5000) * CASE WHEN g % 4 < 2 THEN 2 ELSE 1 END AS amount
        FROM generate_series(4, ${entries + 3}) g`);
    await client.query(
      `INSERT INTO journal_entries (id, organization_id, environment, entry_date, source_type, source_id, memo, reverses_entry_id, posted_at, event_id)
       SELECT id, $1::uuid, 'test', d, (ARRAY['invoice','bill','payment','vendor_payment'])[kind + 1], doc, NULL, NULL, now() - make_interval(secs => g), gen_random_uuid() FROM seed`,
      [organizationId],
    );
    // [debit code, credit code] per kind; dims: invoices and payments carry customer + invoice, the rest vendor + bill.
    const codes = `(ARRAY[${acc('1100')}, ${acc('5000')}, ${acc('1000')}, ${acc('2000')}])[kind + 1]`;
    const ccodes = `(ARRAY[${acc('4000')}, ${acc('2000')}, ${acc('1100')}, ${acc('1000')}])[kind + 1]`;
    const dims = `CASE WHEN kind IN (0, 2) THEN party END, CASE WHEN kind IN (0, 2) THEN doc END, CASE WHEN kind IN (1, 3) THEN party END, CASE WHEN kind IN (1, 3) THEN doc END`;
    await client.query(
      `INSERT INTO journal_lines (entry_id, line_no, organization_id, environment, entry_date, account_id, account_code, side, amount_cents, customer_id, invoice_id, vendor_id, bill_id)
       SELECT id, 0, $1::uuid, 'test', d, ${codes}, (ARRAY['1100','5000','1000','2000'])[kind + 1], 'debit', amount, ${dims} FROM seed
       UNION ALL
       SELECT id, 1, $1::uuid, 'test', d, ${ccodes}, (ARRAY['4000','2000','1100','1000'])[kind + 1], 'credit', amount,
              ${dims} FROM seed`,
      [organizationId],
    );
    await client.query(
      `INSERT INTO parties (id, organization_id, environment, kind, display_name, is_1099_eligible, w9_on_file, version)
       SELECT DISTINCT ON (party) party, $1::uuid, 'test', CASE WHEN kind IN (0, 2) THEN 'customer' ELSE 'vendor' END, 'Seeded ' || party, kind IN (1, 3), false, now() FROM seed ON CONFLICT DO NOTHING`,
      [organizationId],
    );
    await client.query(`
      INSERT INTO account_days (organization_id, environment, account_code, entry_date, debit_cents, credit_cents)
      SELECT organization_id, environment, account_code, entry_date,
             coalesce(sum(amount_cents) FILTER (WHERE side = 'debit'), 0), coalesce(sum(amount_cents) FILTER (WHERE side = 'credit'), 0)
        FROM journal_lines l WHERE l.entry_id IN (SELECT id FROM seed) GROUP BY 1, 2, 3, 4
      ON CONFLICT (organization_id, environment, account_code, entry_date)
      DO UPDATE SET debit_cents = account_days.debit_cents + EXCLUDED.debit_cents, credit_cents = account_days.credit_cents + EXCLUDED.credit_cents`);
    // As the projection does per line (A/R and A/P lines per party, due date and day) and per vendor payment nothing reverses.
    await client.query(
      `INSERT INTO open_days (organization_id, environment, account_code, entry_date, party_id, due_date, open_cents)
       SELECT l.organization_id, l.environment, l.account_code, l.entry_date, coalesce(l.customer_id, l.vendor_id), s.d + 30,
              sum(CASE WHEN (l.side = 'debit') = (l.account_code = '1100') THEN l.amount_cents ELSE -l.amount_cents END)
         FROM journal_lines l JOIN seed s ON s.id = l.entry_id -- a payment's document is issued on its own day
        WHERE l.account_code IN ('1100', '2000') GROUP BY 1, 2, 3, 4, 5, 6
       ON CONFLICT (organization_id, environment, account_code, entry_date, party_id, due_date)
       DO UPDATE SET open_cents = open_days.open_cents + EXCLUDED.open_cents`,
    );
    // As the projection does per A/R and A/P line: each party's balance per day, month and year; the furthest due date after an entry date.
    await client.query(
      `INSERT INTO party_periods (organization_id, environment, account_code, grain, period, party_id, open_cents)
       SELECT o.organization_id, o.environment, o.account_code, g.grain,
              CASE g.grain WHEN 0 THEN o.entry_date WHEN 1 THEN date_trunc('month', o.entry_date)::date ELSE date_trunc('year', o.entry_date)::date END,
              o.party_id, sum(o.open_cents)
         FROM open_days o CROSS JOIN (VALUES (0), (1), (2)) g(grain) WHERE o.organization_id = $1::uuid AND o.environment = 'test'
        GROUP BY 1, 2, 3, 4, 5, 6
       ON CONFLICT (organization_id, environment, account_code, grain, period, party_id) DO UPDATE SET open_cents = EXCLUDED.open_cents`,
      [organizationId],
    );
    await client.query(
      `INSERT INTO open_leads (organization_id, environment, account_code, lead_days)
       SELECT organization_id, environment, account_code, greatest(0, max(due_date - entry_date)) FROM open_days
        WHERE organization_id = $1::uuid AND environment = 'test' AND due_date <> 'infinity' GROUP BY 1, 2, 3
       ON CONFLICT (organization_id, environment, account_code) DO UPDATE SET lead_days = EXCLUDED.lead_days`,
      [organizationId],
    );
    await client.query(`
      INSERT INTO vendor_payment_years (organization_id, environment, year, vendor_id, paid_cents)
      SELECT e.organization_id, e.environment, extract(year FROM e.entry_date)::int, coalesce(l.vendor_id, '00000000-0000-0000-0000-000000000000'), sum(l.amount_cents)
        FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id AND l.account_code = '2000' AND l.side = 'debit'
       WHERE e.id IN (SELECT id FROM seed) AND e.source_type = 'vendor_payment' AND e.reverses_entry_id IS NULL
         AND NOT EXISTS (SELECT 1 FROM journal_entries r WHERE r.reverses_entry_id = e.id)
       GROUP BY 1, 2, 3, 4
      ON CONFLICT (organization_id, environment, year, vendor_id) DO UPDATE SET paid_cents = vendor_payment_years.paid_cents + EXCLUDED.paid_cents`);
    await client.query('COMMIT');
    await client.query(
      'ANALYZE reporting.journal_lines; ANALYZE reporting.journal_entries; ANALYZE reporting.parties; ANALYZE reporting.account_days; ANALYZE reporting.vendor_payment_years',
    );
    // What autovacuum does to a settled table: the visibility map, so the aging ranges are index-only scans.
    for (const t of ['open_days', 'party_periods', 'open_leads']) await client.query(`VACUUM (ANALYZE) reporting.${t}`);
    return Date.now() - started;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    await client.end();
  }
}

/** EXPLAIN ANALYZE of the report queries, built by services/reporting/src/queries/reports.ts as the service runs them. */
export async function explainReports(databaseUrl: string, organizationId: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SET search_path = reporting');
    const s = { organizationId, environment: 'test' as const };
    const queries: [string, ReportQuery][] = [
      ['account totals (accounts, trial balance)', reportQueries.accountTotals(s, '2025-06-30')],
      ['summary revenue', reportQueries.netCredit(s, '4000', '2024-01-01', '2024-12-31')],
      ['A/R open amounts per party and bucket', reportQueries.openAmounts(s, 'invoice', '2025-06-30')],
      ['A/P open amounts per party and bucket', reportQueries.openAmounts(s, 'bill', '2025-06-30')],
      ['A/R open amounts as of a day after the last entry', reportQueries.openAmounts(s, 'invoice', '2026-12-31')],
      ['1099 vendor payments', reportQueries.vendorPaymentsInYear(s, 2025)],
      ['journal entries (first page)', reportQueries.journalEntries(s, {}, { limit: 50, offset: 0, cursor: null, created: [] })],
    ];
    const out: string[] = [];
    for (const [name, { sql, params }] of queries) {
      const r = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) ${positional(sql)}`, params);
      const plan = r.rows.map((x: Record<string, string>) => x['QUERY PLAN']);
      out.push(`-- ${name}\n${plan.join('\n')}`);
    }
    return out.join('\n\n');
  } finally {
    await client.end();
  }
}
