/** The fault-injection test's check of the writes: every acknowledged one in the books exactly once. */
import type { WriteLoad } from './load';
import type { FaultSystem, Figures } from './system';

/** Every acknowledged write is in the database exactly once (by external id), and nothing else. */
export async function expectEveryAckedWriteOnce({ sql, keys }: FaultSystem, load: WriteLoad, figures: Figures): Promise<void> {
  const org = keys.organization_id;
  let lost = 0;
  let doubled = 0;
  const problems: string[] = [];
  const check = (what: string, ext: string, n: number) => {
    if (n === 0) lost++;
    if (n > 1) doubled++;
    if (n !== 1 && problems.length < 20) problems.push(`${what} ${ext}: ${n} rows`);
  };
  const byExt = async (table: string, col: string, exts: string[]) => {
    const rows = await sql<{ ext: string; n: number }>(
      `SELECT ${col} AS ext, count(*)::int AS n FROM ${table.includes('.') ? table : `receivables.${table}`} WHERE organization_id = $1 AND environment = 'test' AND ${col} = ANY($2::text[]) GROUP BY ${col}`,
      [org, exts],
    );
    return new Map(rows.map((r) => [r.ext, r.n]));
  };
  /** Each write of `list` is one row of `table` by its external id in `col`. */
  const checkByExt = async (what: string, table: string, col: string, list: { ext: string }[]) => {
    const n = await byExt(
      table,
      col,
      list.map((a) => a.ext),
    );
    for (const a of list) check(what, a.ext, n.get(a.ext) ?? 0);
  };
  /** A document's status, total and amount paid are what the acknowledged writes make them. */
  const checkState = (what: string, ext: string, got: { status: string; total: number; paid: number }, want: typeof got) => {
    if (JSON.stringify(got) === JSON.stringify(want)) return;
    if (got.paid > want.paid) doubled++;
    else lost++;
    if (problems.length < 20) problems.push(`${what} ${ext}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`);
  };
  const acks = load.acks;
  const of = <K extends (typeof acks)[number]['kind']>(k: K) => acks.filter((a): a is Extract<(typeof acks)[number], { kind: K }> => a.kind === k);

  const customers = of('customer');
  await checkByExt('customer', 'customers', 'external_customer_id', customers);

  const invoices = of('invoice');
  await checkByExt('invoice', 'invoices', 'external_invoice_id', invoices);

  // Payments, from POST /payments and from payment.received events.
  const payments = of('payment');
  const events = of('event');
  const pn = await byExt('payments', 'external_payment_id', [...payments.map((a) => a.ext), ...events.map((a) => a.paymentExt)]);
  for (const a of payments) check('payment', a.ext, pn.get(a.ext) ?? 0);
  for (const a of events) check('event payment', a.paymentExt, pn.get(a.paymentExt) ?? 0);
  await checkByExt('event', 'inbound_events', 'external_event_id', events);

  // One journal entry per posted invoice and per payment: a doubled posting shows here.
  const entries = await sql<{
    source_type: string;
    source_id: string;
    n: number;
  }>(`SELECT source_type, source_id::text, count(*)::int AS n FROM receivables.journal_entries WHERE organization_id = $1 AND environment = 'test' GROUP BY 1, 2`, [org]);
  const entryCount = new Map(entries.map((e) => [`${e.source_type}:${e.source_id}`, e.n]));
  const postedIds = new Set(of('post').map((a) => a.id));
  for (const id of postedIds) check('invoice posting', id, entryCount.get(`invoice:${id}`) ?? 0);
  const paymentIds = (await sql<{ id: string }>(`SELECT id::text FROM receivables.payments WHERE organization_id = $1`, [org])).map((r) => r.id);
  for (const id of paymentIds) check('payment posting', id, entryCount.get(`payment:${id}`) ?? 0);

  // Each invoice: status and amount paid agree with the acknowledged writes exactly.
  const paidByInvoice = new Map<string, number>();
  for (const a of [...payments, ...events]) paidByInvoice.set(a.invoiceId, (paidByInvoice.get(a.invoiceId) ?? 0) + a.amountCents);
  const dbInvoices = await sql<{
    id: string;
    status: string;
    total: string;
    paid: string;
  }>(`SELECT id::text, status, total_cents AS total, paid_cents AS paid FROM receivables.invoices WHERE organization_id = $1 AND environment = 'test'`, [org]);
  const dbInv = new Map(dbInvoices.map((r) => [r.id, r]));
  for (const a of invoices) {
    const row = dbInv.get(a.id);
    if (!row) continue; // counted as lost above
    const paid = paidByInvoice.get(a.id) ?? 0;
    const expectedStatus = !postedIds.has(a.id) ? 'draft' : paid === 0 ? 'open' : paid === a.totalCents ? 'paid' : 'partially_paid';
    checkState('invoice', a.ext, { status: row.status, total: Number(row.total), paid: Number(row.paid) }, { status: expectedStatus, total: a.totalCents, paid });
  }

  // Nothing the clients were not told about: every request got a final answer, so every row of
  // the organization is an acknowledged write.
  const [totals] = await sql(
    `SELECT (SELECT count(*)::int FROM receivables.customers WHERE organization_id = $1) AS customers,
            (SELECT count(*)::int FROM receivables.invoices WHERE organization_id = $1) AS invoices,
            (SELECT count(*)::int FROM receivables.payments WHERE organization_id = $1) AS payments,
            (SELECT count(*)::int FROM receivables.inbound_events WHERE organization_id = $1) AS events`,
    [org],
  );

  // Payables: vendors, bills and vendor payments by external id.
  const vendors = of('vendor');
  await checkByExt('vendor', 'payables.vendors', 'external_vendor_id', vendors);
  const bills = of('bill');
  await checkByExt('bill', 'payables.bills', 'external_bill_id', bills);
  const vendorPayments = of('vendor_payment');
  await checkByExt('vendor payment', 'payables.vendor_payments', 'external_vendor_payment_id', vendorPayments);

  // Journal entries of payables: one per posted bill, one more per reversal (it points at the
  // original), one per vendor payment. A doubled posting or reversal shows here.
  const apEntries = await sql<{ source_type: string; source_id: string; originals: number; reversals: number }>(
    `SELECT source_type, source_id::text, count(*) FILTER (WHERE reverses_entry_id IS NULL)::int AS originals, count(*) FILTER (WHERE reverses_entry_id IS NOT NULL)::int AS reversals
       FROM payables.journal_entries WHERE organization_id = $1 AND environment = 'test' GROUP BY 1, 2`,
    [org],
  );
  const apEntry = new Map(apEntries.map((e) => [`${e.source_type}:${e.source_id}`, e]));
  const reversedIds = new Set(of('bill_reversal').map((a) => a.id));
  for (const a of bills) {
    const e = apEntry.get(`bill:${a.id}`);
    check('bill posting', a.ext, e?.originals ?? 0);
    if (reversedIds.has(a.id)) check('bill reversal', a.ext, e?.reversals ?? 0);
    else if (e?.reversals) {
      doubled++;
      if (problems.length < 20) problems.push(`bill ${a.ext}: ${e.reversals} reversal entries, no reversal acknowledged`);
    }
  }
  const vpIds = (await sql<{ id: string }>(`SELECT id::text FROM payables.vendor_payments WHERE organization_id = $1`, [org])).map((r) => r.id);
  for (const id of vpIds) check('vendor payment posting', id, apEntry.get(`vendor_payment:${id}`)?.originals ?? 0);

  // Each bill: status and amount paid agree with the acknowledged writes exactly.
  const paidByBill = new Map<string, number>();
  for (const a of vendorPayments) paidByBill.set(a.billId, (paidByBill.get(a.billId) ?? 0) + a.amountCents);
  const dbBills = new Map(
    (
      await sql<{ id: string; status: string; total: string; paid: string }>(
        `SELECT id::text, status, total_cents AS total, paid_cents AS paid FROM payables.bills WHERE organization_id = $1 AND environment = 'test'`,
        [org],
      )
    ).map((r) => [r.id, r]),
  );
  for (const a of bills) {
    const row = dbBills.get(a.id);
    if (!row) continue; // counted as lost above
    const want = { status: reversedIds.has(a.id) ? 'reversed' : 'posted', total: a.totalCents, paid: paidByBill.get(a.id) ?? 0 };
    checkState('bill', a.ext, { status: row.status, total: Number(row.total), paid: Number(row.paid) }, want);
  }
  const [apTotals] = await sql(
    `SELECT (SELECT count(*)::int FROM payables.vendors WHERE organization_id = $1) AS vendors,
            (SELECT count(*)::int FROM payables.bills WHERE organization_id = $1) AS bills,
            (SELECT count(*)::int FROM payables.vendor_payments WHERE organization_id = $1) AS vendor_payments`,
    [org],
  );

  figures['writes lost'] = lost;
  figures['writes doubled'] = doubled;
  expect(problems).toEqual([]);
  expect({ lost, doubled }).toEqual({ lost: 0, doubled: 0 });
  expect(totals).toEqual({
    customers: customers.length,
    invoices: invoices.length,
    payments: payments.length + events.length,
    events: events.length,
  });
  expect(apTotals).toEqual({ vendors: vendors.length, bills: bills.length, vendor_payments: vendorPayments.length });
}
