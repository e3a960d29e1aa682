import pg from 'pg';

/**
 * Seeds the reporting projection straight (no events): `lines` journal lines for one organization's
 * test environment, two per entry, in four kinds that cycle: an invoice (Dr 1100 / Cr 4000), a bill
 * (Dr 5000 / Cr 2000), a payment of half the invoice two entries before (Dr 1000 / Cr 1100) and a
 * vendor payment of half the bill two before (Dr 2000 / Cr 1000), over 1000 customers or vendors and
 * 1000 days from 2024-01-01; with the documents (due 30 days after issue) and the parties.
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
             md5('party' || ((g / 4) % 1000) || CASE WHEN g % 2 = 0 THEN 'c' ELSE 'v' END)::uuid AS party,
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
      `INSERT INTO documents (id, organization_id, environment, kind, party_id, issue_date, due_date)
       SELECT doc, $1::uuid, 'test', CASE WHEN kind = 0 THEN 'invoice' ELSE 'bill' END, party, d, d + 30 FROM seed WHERE kind < 2 ON CONFLICT DO NOTHING`,
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
    // As the projection does per line (A/R and A/P lines per document, party and day) and per vendor payment nothing reverses.
    await client.query(`
      INSERT INTO document_days (organization_id, environment, account_code, entry_date, document_id, party_id, debit_cents, credit_cents)
      SELECT organization_id, environment, account_code, entry_date,
             coalesce(CASE WHEN account_code = '1100' THEN invoice_id ELSE bill_id END, '00000000-0000-0000-0000-000000000000'),
             coalesce(CASE WHEN account_code = '1100' THEN customer_id ELSE vendor_id END, '00000000-0000-0000-0000-000000000000'),
             coalesce(sum(amount_cents) FILTER (WHERE side = 'debit'), 0), coalesce(sum(amount_cents) FILTER (WHERE side = 'credit'), 0)
        FROM journal_lines l WHERE l.entry_id IN (SELECT id FROM seed) AND account_code IN ('1100', '2000') GROUP BY 1, 2, 3, 4, 5, 6
      ON CONFLICT (organization_id, environment, account_code, entry_date, document_id, party_id)
      DO UPDATE SET debit_cents = document_days.debit_cents + EXCLUDED.debit_cents, credit_cents = document_days.credit_cents + EXCLUDED.credit_cents`);
    await client.query(`
      INSERT INTO vendor_payment_days (organization_id, environment, entry_date, vendor_id, paid_cents)
      SELECT e.organization_id, e.environment, e.entry_date, coalesce(l.vendor_id, '00000000-0000-0000-0000-000000000000'), sum(l.amount_cents)
        FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id AND l.account_code = '2000' AND l.side = 'debit'
       WHERE e.id IN (SELECT id FROM seed) AND e.source_type = 'vendor_payment' AND e.reverses_entry_id IS NULL
         AND NOT EXISTS (SELECT 1 FROM journal_entries r WHERE r.reverses_entry_id = e.id)
       GROUP BY 1, 2, 3, 4
      ON CONFLICT (organization_id, environment, entry_date, vendor_id) DO UPDATE SET paid_cents = vendor_payment_days.paid_cents + EXCLUDED.paid_cents`);
    await client.query('COMMIT');
    await client.query(
      'ANALYZE reporting.journal_lines; ANALYZE reporting.journal_entries; ANALYZE reporting.documents; ANALYZE reporting.parties; ANALYZE reporting.account_days; ANALYZE reporting.document_days; ANALYZE reporting.vendor_payment_days',
    );
    return Date.now() - started;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    await client.end();
  }
}

/** EXPLAIN ANALYZE of the report queries (as services/reporting/src/queries.ts has them), summarized. */
export async function explainReports(databaseUrl: string, organizationId: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SET search_path = reporting');
    const s = [organizationId, 'test'];
    const queries: [string, string, unknown[]][] = [
      [
        'account totals (accounts, trial balance)',
        `SELECT account_code, sum(debit_cents), sum(credit_cents) FROM account_days
          WHERE organization_id = $1::uuid AND environment = $2 AND entry_date <= '2025-06-30' GROUP BY account_code`,
        s,
      ],
      [
        'summary revenue',
        `SELECT sum(credit_cents - debit_cents) FROM account_days
          WHERE organization_id = $1::uuid AND environment = $2 AND account_code = '4000' AND entry_date >= '2024-01-01' AND entry_date <= '2024-12-31'`,
        s,
      ],
      [
        'A/R open documents',
        `SELECT o.party_id, sum(o.open), d.due_date, p.display_name
           FROM (SELECT document_id AS doc_id, max(nullif(party_id, '00000000-0000-0000-0000-000000000000')::text) AS party_id, sum(debit_cents - credit_cents) AS open
                   FROM document_days WHERE organization_id = $1::uuid AND environment = $2 AND account_code = '1100' AND entry_date <= '2025-06-30' GROUP BY document_id) o
           LEFT JOIN documents d ON d.id = nullif(o.doc_id, '00000000-0000-0000-0000-000000000000') LEFT JOIN parties p ON p.id = o.party_id::uuid
          WHERE o.open <> 0 GROUP BY o.party_id, d.due_date, p.id, p.display_name`,
        s,
      ],
      [
        '1099 vendor payments',
        `SELECT v.vendor_id, v.paid, p.display_name FROM (SELECT nullif(vendor_id, '00000000-0000-0000-0000-000000000000') AS vendor_id, sum(paid_cents) AS paid
           FROM vendor_payment_days WHERE organization_id = $1::uuid AND environment = $2 AND entry_date >= '2025-01-01' AND entry_date < '2026-01-01'
          GROUP BY vendor_id HAVING sum(paid_cents) <> 0) v LEFT JOIN parties p ON p.id = v.vendor_id`,
        s,
      ],
    ];
    const out: string[] = [];
    for (const [name, sql, params] of queries) {
      const r = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) ${sql}`, params);
      const plan = r.rows.map((x: Record<string, string>) => x['QUERY PLAN']);
      out.push(`-- ${name}\n${plan.join('\n')}`);
    }
    return out.join('\n\n');
  } finally {
    await client.end();
  }
}
