/** The organizations bench:compare measures: made through the API, then grown by SQL copies of one draft. */
import { Client } from 'pg';
import type { adminCli, startStack, Stack } from '@acct/stack';
import { POST_INVOICES, SCENARIOS, STALE_STATS } from './compare-env';
import { createOne } from './drive';

/** One checkout's stack under test, on its own database and NATS prefix. */
export interface Variant {
  label: string;
  dbName: string;
  databaseUrl: string;
  natsPrefix: string;
  startStack: typeof startStack;
  adminCli: typeof adminCli;
  stack?: Stack;
}

export interface Org {
  build: string;
  organizationId: string;
  invoices: number;
  headers: Record<string, string>;
  customerId: string;
  vendorId: string;
  /** Seeded invoices the GET scenario reads in turn (random ones: not only the newest, first in the list index). */
  readIds: string[];
  /** Seeded bills the mixed scenario reads in turn. */
  billReadIds: string[];
  /** Seeded drafts the post scenario posts, once each. */
  drafts: string[];
  /** Seeded drafts the mixed scenario posts, once each (others than `drafts`). */
  mixedDrafts: string[];
}

/**
 * Copies the template row `templateId` of schema.table `count` times in one INSERT ... SELECT,
 * with the columns of `overrides` replaced by SQL expressions of the series index g.
 */
async function copyRows(db: Client, schema: string, table: string, templateId: string, count: number, overrides: Record<string, string>): Promise<void> {
  if (count <= 0) return;
  const { rows } = await db.query<{ column_name: string }>(
    'SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position',
    [schema, table],
  );
  const cols = rows.map((r) => r.column_name);
  const exprs = cols.map((c) => overrides[c] ?? `t.${c}`);
  await db.query(`INSERT INTO ${schema}.${table} (${cols.join(', ')}) SELECT ${exprs.join(', ')} FROM ${schema}.${table} t, generate_series(1, $2::int) g WHERE t.id = $1`, [
    templateId,
    count,
  ]);
}

export async function makeOrg(v: Variant, invoices: number, tag: string): Promise<Org> {
  const { databaseUrl } = v;
  const url = v.stack!.gatewayUrl;
  const boot = await v.adminCli<{ test_key: string; organization_id: string }>(databaseUrl, 'bootstrap', '--name', `Bench ${tag}`, '--json');
  const headers = { authorization: `Bearer ${boot.test_key}`, 'content-type': 'application/json', accept: 'application/json' };
  const cRes = await fetch(`${url}/api/v1/customers`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ external_customer_id: `c-${tag}`, name: 'Bench customer', email: 'c@example.com' }),
  });
  if (cRes.status !== 201) throw new Error(`creating the customer failed: ${cRes.status} ${await cRes.text()}`);
  const customerId = ((await cRes.json()) as { customer: { id: string } }).customer.id;
  const vendorId = await createOne(`${url}/api/v1/vendors`, headers, { external_vendor_id: `v-${tag}`, display_name: 'Bench vendor', is_1099_eligible: true });
  const invoiceTemplate = await createOne(`${url}/api/v1/invoices`, headers, {
    external_invoice_id: `tpl-${tag}`,
    customer_id: customerId,
    invoice_number: 'T-1',
    issue_date: '2026-11-01',
    due_date: '2026-12-01',
    line_items: [{ description: 'Bench work', quantity: 1.25, unit_amount_cents: 10_000 }],
  });
  const billTemplate = await createOne(`${url}/api/v1/bills`, headers, {
    external_bill_id: `tpl-${tag}`,
    vendor_id: vendorId,
    bill_number: 'VT-1',
    issue_date: '2026-11-01',
    due_date: '2026-12-01',
    line_items: [{ description: 'Bench supplies', quantity: 1, unit_amount_cents: 10_000 }],
  });
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    for (const t of ['receivables.invoices', 'payables.bills']) {
      if (STALE_STATS) await db.query(`ALTER TABLE ${t} SET (autovacuum_enabled = false)`);
      if (STALE_STATS) await db.query(`ANALYZE ${t}`);
    }
    // Older than anything the scenarios make; drafts, so the ledger does not need to know them.
    await copyRows(db, 'receivables', 'invoices', invoiceTemplate, invoices - 1, {
      id: 'gen_random_uuid()',
      external_invoice_id: `'seed-' || g`,
      invoice_number: `'S-' || g`,
      created_at: `t.created_at - g * interval '1 second'`,
    });
    await copyRows(db, 'payables', 'bills', billTemplate, invoices - 1, {
      id: 'gen_random_uuid()',
      external_bill_id: `'seed-' || g`,
      bill_number: `'SB-' || g`,
      status: `'draft'`,
      journal_entry_id: 'NULL',
      posted_at: 'NULL',
      created_at: `t.created_at - g * interval '1 second'`,
    });
    if (!STALE_STATS) await db.query('ANALYZE receivables.invoices');
    if (!STALE_STATS) await db.query('ANALYZE payables.bills');
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM receivables.invoices WHERE organization_id = $1 AND status = 'draft' AND id <> $2 ORDER BY random() LIMIT $3`, [
      boot.organization_id,
      invoiceTemplate,
      2 * POST_INVOICES,
    ]);
    if (rows.length < Math.min(2 * POST_INVOICES, invoices - 1)) throw new Error('seeding drafts failed');
    // Both scenarios that post: half each (a small organization has fewer drafts than 2 × BENCH_POST_INVOICES).
    const ids = rows.map((r) => r.id);
    const both = SCENARIOS.has('post-invoice') && SCENARIOS.has('mixed');
    const forPost = both ? ids.slice(0, Math.min(POST_INVOICES, Math.ceil(ids.length / 2))) : ids.slice(0, POST_INVOICES);
    const mixedDrafts = both ? ids.slice(forPost.length) : ids.slice(-POST_INVOICES);
    const reads = await db.query<{ id: string }>(`SELECT id FROM receivables.invoices WHERE organization_id = $1 ORDER BY random() LIMIT 500`, [boot.organization_id]);
    const billReads = await db.query<{ id: string }>(`SELECT id FROM payables.bills WHERE organization_id = $1 ORDER BY random() LIMIT 500`, [boot.organization_id]);
    return {
      build: v.label,
      organizationId: boot.organization_id,
      invoices,
      headers,
      customerId,
      vendorId,
      readIds: reads.rows.map((r) => r.id),
      billReadIds: billReads.rows.map((r) => r.id),
      drafts: forPost,
      mixedDrafts,
    };
  } finally {
    await db.end();
  }
}
