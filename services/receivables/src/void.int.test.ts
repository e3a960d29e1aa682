import { randomBytes, randomUUID } from 'node:crypto';
import { type RpcReply, type RpcRequest, type TrustedContext } from '@acct/contracts';
import { todayUtc } from '@acct/ledger';
import { catalogueErrors } from '@acct/posting';
import { type TestService, ctx, firstRow, startServiceForTest } from '@acct/testing';
import { receivablesService } from './service';

/**
 * POST /invoices/{id}/void (API-DECISIONS §11) against real Postgres and NATS: a draft voids with
 * no entry, an open invoice with the mirror of its entry on void_date, money received refuses it,
 * a repeat replays, and a void racing a payment leaves exactly one winner and balanced books.
 */
describe('voiding invoices against real Postgres and JetStream', () => {
  let svc: TestService;
  let prefix: string;
  type Ctx = TrustedContext;
  const call = (op: Parameters<TestService['call']>[0], c: Ctx, over: Partial<RpcRequest> = {}): Promise<RpcReply<any>> => svc.call(op, c, over);
  const sql = (q: string, params: unknown[] = []) => svc.sql(q, params);

  async function invoice(c: Ctx, totalCents: number, post: boolean): Promise<{ id: string; external: string }> {
    const customer = await svc.ok('customers.create', c, { body: { external_customer_id: randomUUID(), name: 'C' } });
    const external = randomUUID();
    const inv = await svc.ok('invoices.create', c, {
      body: {
        external_invoice_id: external,
        customer_id: customer.id,
        invoice_number: 'V-1',
        issue_date: '2026-01-10',
        due_date: '2026-02-10',
        line_items: [{ description: 'x', quantity: 1, unit_amount_cents: totalCents }],
      },
    });
    if (post) await svc.ok('invoices.post', c, { params: { id: inv.id } });
    return { id: inv.id, external };
  }
  const voidIt = (c: Ctx, id: string, body: Record<string, unknown> = {}) => call('invoices.void', c, { params: { id }, body });
  const pay = (c: Ctx, invoiceId: string, amount: number) =>
    call('payments.create', c, { body: { external_payment_id: randomUUID(), invoice_id: invoiceId, amount_cents: amount, received_at: '2026-01-15' } });
  const entries = (invoiceId: string) =>
    sql(
      `SELECT e.id, to_char(e.entry_date, 'YYYY-MM-DD') AS entry_date, e.reverses_entry_id, l.account_code, l.side, l.amount_cents::int AS amount, l.invoice_id
         FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id
        WHERE e.source_type = 'invoice' AND e.source_id = ? ORDER BY e.created_at, e.reverses_entry_id NULLS FIRST, l.line_no`,
      [invoiceId],
    );
  const outboundOf = (invoiceId: string, type: string) =>
    sql(`SELECT payload FROM outbox WHERE subject LIKE ? AND payload->'data'->>'invoice_id' = ?`, [`%.events.outbound.${type}`, invoiceId]);

  beforeAll(async () => {
    svc = await startServiceForTest(receivablesService({ config: { processorSecretKey: randomBytes(32) } }));
    ({ prefix } = svc);
  });

  afterAll(() => svc.stop());

  it('voids a draft with no journal entry, emits invoice.voided, and dates it today by default', async () => {
    const c = ctx();
    const inv = await invoice(c, 5000, false);
    const r = await voidIt(c, inv.id);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.status).toBe(200);
    expect(r.replayed).toBeFalsy();
    expect(r.body.action).toEqual({ type: 'voided', status: 'completed' });
    expect(r.body.invoice).toEqual(r.body.data);
    expect(r.body.data).toMatchObject({ id: inv.id, status: 'void', void_date: todayUtc(), balance_due_cents: 0, amount_paid_cents: 0 });
    expect(await entries(inv.id)).toEqual([]);
    const events = await outboundOf(inv.id, 'invoice.voided');
    expect(events.map((e) => e.payload.data)).toEqual([{ invoice_id: inv.id, total_cents: 5000, currency: 'USD' }]);
    expect(events[0].payload).toMatchObject({ type: 'invoice.voided', organization_id: c.organizationId, connected_app_id: c.connectedAppId });
    // A void draft cannot be posted any more (409): it stays void.
    const post = await call('invoices.post', c, { params: { id: inv.id } });
    expect(post.ok ? post.status : { code: post.error.code, issue: post.error.details[0]?.issue }).toEqual({ code: 'conflict', issue: 'invoice_void' });
    expect(await entries(inv.id)).toEqual([]);
  });

  it('voids an open invoice with the mirror of its entry on void_date, linked to it, and replays a repeat with no second entry', async () => {
    const c = ctx();
    const inv = await invoice(c, 12_345, true);
    const r = await voidIt(c, inv.id, { void_date: '2026-01-20' });
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.body.data).toMatchObject({ status: 'void', void_date: '2026-01-20', balance_due_cents: 0, total_cents: 12_345 });
    const lines = await entries(inv.id);
    expect(lines).toHaveLength(4);
    const [post1, post2, void1, void2] = lines;
    expect([post1, post2].map((l) => [l.entry_date, l.account_code, l.side, l.amount])).toEqual([
      ['2026-01-10', '1100', 'debit', 12_345],
      ['2026-01-10', '4000', 'credit', 12_345],
    ]);
    expect([void1, void2].map((l) => [l.entry_date, l.account_code, l.side, l.amount, l.invoice_id, l.reverses_entry_id])).toEqual([
      ['2026-01-20', '1100', 'credit', 12_345, inv.id, post1.id],
      ['2026-01-20', '4000', 'debit', 12_345, inv.id, post1.id],
    ]);
    const row = firstRow(await sql(`SELECT status, void_entry_id, to_char(void_date, 'YYYY-MM-DD') AS void_date, voided_at FROM invoices WHERE id = ?`, [inv.id]));
    expect(row).toMatchObject({ status: 'void', void_entry_id: void1.id, void_date: '2026-01-20' });
    // The posting event says what the reversal is: the void invoice, so reporting ages it by its due date.
    const [posting] = await sql(`SELECT payload FROM outbox WHERE subject LIKE '%.events.posting.%' AND payload->'entry'->>'id' = ?`, [void1.id]);
    expect(posting.payload.source).toMatchObject({ type: 'invoice_void', invoice: { id: inv.id, status: 'void', due_date: '2026-02-10' } });

    for (const body of [{}, { void_date: '2026-01-25' }]) {
      const again = await voidIt(c, inv.id, body);
      expect(again.ok && { status: again.status, replayed: again.replayed, data: again.body.data }).toEqual({ status: 200, replayed: true, data: r.body.data });
    }
    expect(await entries(inv.id)).toHaveLength(4);
    expect(await outboundOf(inv.id, 'invoice.voided')).toHaveLength(1);
  });

  it('refuses a partially paid and a paid invoice (409) and writes nothing', async () => {
    const c = ctx();
    for (const [amount, status] of [
      [400, 'partially_paid'],
      [1000, 'paid'],
    ] as const) {
      const inv = await invoice(c, 1000, true);
      expect((await pay(c, inv.id, amount)).ok).toBe(true);
      const r = await voidIt(c, inv.id, { void_date: '2026-01-20' });
      expect(r.ok ? r.status : { code: r.error.code, issue: r.error.details[0]?.issue }).toEqual({ code: 'conflict', issue: `invoice_${status}` });
      expect(firstRow(await sql(`SELECT status FROM invoices WHERE id = ?`, [inv.id])).status).toBe(status);
      expect(await entries(inv.id)).toHaveLength(2);
      expect(await outboundOf(inv.id, 'invoice.voided')).toEqual([]);
    }
  });

  it('voids an invoice whose only payment was refunded in full', async () => {
    const c = ctx();
    const inv = await invoice(c, 900, true);
    const external = randomUUID();
    const body = {
      event_type: 'payment.received',
      external_event_id: randomUUID(),
      payload: { external_payment_id: external, external_invoice_id: inv.external, amount_cents: 900, received_at: '2026-01-12' },
    };
    expect((await svc.ok('events.create', c, { body })).status).toBe('processed');
    await svc.ok('events.create', c, { body: { event_type: 'payment.refunded', external_event_id: randomUUID(), payload: { external_payment_id: external } } });
    const r = await voidIt(c, inv.id, { void_date: '2026-01-20' });
    expect(r.ok && r.body.data.status).toBe('void');
  });

  it('refuses a void date before the issue date (400 naming /void_date) and writes nothing', async () => {
    const c = ctx();
    for (const post of [false, true]) {
      const inv = await invoice(c, 700, post);
      const r = await voidIt(c, inv.id, { void_date: '2026-01-09' });
      expect(r.ok ? r.status : { code: r.error.code, field: r.error.details[0]?.field, issue: r.error.details[0]?.issue }).toEqual({
        code: 'validation_failed',
        field: '/void_date',
        issue: 'before_issue_date',
      });
      expect(firstRow(await sql(`SELECT status FROM invoices WHERE id = ?`, [inv.id])).status).toBe(post ? 'open' : 'draft');
      // On the issue date itself is fine.
      const onIssue = await voidIt(c, inv.id, { void_date: '2026-01-10' });
      expect(onIssue.ok && onIssue.body.data.void_date).toBe('2026-01-10');
    }
  });

  it("takes no payment on a void invoice (409 invoice_void), and answers another organization's invoice as not found", async () => {
    const c = ctx();
    const inv = await invoice(c, 1000, true);
    await svc.ok('invoices.void', c, { params: { id: inv.id } });
    const r = await pay(c, inv.id, 100);
    expect(r.ok ? r.status : { code: r.error.code, issue: r.error.details[0]?.issue }).toEqual({ code: 'conflict', issue: 'invoice_void' });
    // A processor's payment for it is stored as failed, saying why.
    const event = await svc.ok('events.create', c, {
      body: {
        event_type: 'payment.received',
        external_event_id: randomUUID(),
        payload: { external_payment_id: randomUUID(), external_invoice_id: inv.external, amount_cents: 100, received_at: '2026-01-21' },
      },
    });
    expect(event).toMatchObject({ status: 'failed', details: [expect.objectContaining({ issue: 'invoice_void' })] });
    expect(firstRow(await sql(`SELECT paid_cents::int AS paid FROM invoices WHERE id = ?`, [inv.id])).paid).toBe(0);
    const other = await voidIt(ctx(), inv.id);
    expect(other.ok ? other.status : other.error.code).toBe('not_found');
    const missing = await voidIt(c, randomUUID());
    expect(missing.ok ? missing.status : missing.error.code).toBe('not_found');
  });

  it('lets exactly one of a void and a payment racing on one invoice win, and keeps the books balanced', async () => {
    const c = ctx();
    const outcomes = new Set<string>();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const inv = await invoice(c, 1000, true);
      ids.push(inv.id);
      const racers = i % 2 === 0 ? [voidIt(c, inv.id, { void_date: '2026-01-20' }), pay(c, inv.id, 1000)] : [pay(c, inv.id, 400), voidIt(c, inv.id, { void_date: '2026-01-20' })];
      const [a, b] = await Promise.all(racers);
      expect([a!.ok, b!.ok].filter(Boolean)).toHaveLength(1);
      const status = firstRow(await sql(`SELECT status FROM invoices WHERE id = ?`, [inv.id])).status;
      outcomes.add(status === 'void' ? 'void won' : 'payment won');
      const refused = [a!, b!].find((r) => !r.ok)!;
      expect(!refused.ok && refused.error.code).toBe('conflict');
    }
    expect(outcomes.size).toBeGreaterThanOrEqual(1);
    const totals = firstRow(
      await sql(
        `SELECT coalesce(sum(amount_cents) FILTER (WHERE side = 'debit'), 0)::bigint AS debits, coalesce(sum(amount_cents) FILTER (WHERE side = 'credit'), 0)::bigint AS credits
           FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id WHERE e.organization_id = ?`,
        [c.organizationId],
      ),
    );
    expect(totals.debits).toBe(totals.credits);
    // Per invoice, A/R in the ledger is its open balance: 0 once void, total less paid otherwise.
    const perInvoice = await sql(
      `SELECT i.id, CASE WHEN i.status = 'void' THEN 0 ELSE i.total_cents - i.paid_cents END::bigint AS open,
              (SELECT coalesce(sum(CASE side WHEN 'debit' THEN amount_cents ELSE -amount_cents END), 0) FROM journal_lines WHERE invoice_id = i.id AND account_code = '1100')::bigint AS ar
         FROM invoices i WHERE i.id = ANY(?::uuid[])`,
      [`{${ids.join(',')}}`],
    );
    for (const r of perInvoice) expect({ id: r.id, ar: r.ar }).toEqual({ id: r.id, ar: r.open });
  });

  it('lets exactly one of many racing voids of one invoice book the reversal', async () => {
    const c = ctx();
    const inv = await invoice(c, 2500, true);
    const replies = await Promise.all(Array.from({ length: 8 }, () => voidIt(c, inv.id, { void_date: '2026-01-20' })));
    expect(replies.every((r) => r.ok)).toBe(true);
    expect(replies.filter((r) => r.ok && !r.replayed)).toHaveLength(1);
    expect(await entries(inv.id)).toHaveLength(4);
    expect(await outboundOf(inv.id, 'invoice.voided')).toHaveLength(1);
  });

  it('refuses a payment recorded behind the service’s back on a void invoice: the database guard', async () => {
    const c = ctx();
    const inv = await invoice(c, 1000, true);
    await svc.ok('invoices.void', c, { params: { id: inv.id } });
    await expect(sql(`UPDATE invoices SET paid_cents = 100 WHERE id = ?`, [inv.id])).rejects.toThrow(/invoices_void_unpaid/);
    await expect(sql(`UPDATE invoices SET void_date = '2026-01-01' WHERE id = ?`, [inv.id])).rejects.toThrow(/invoices_void_date/);
  });

  it('wrote only events of the catalogue: every outbox row of this file validates against EventMap', async () => {
    const rows = (await sql(`SELECT subject, payload FROM outbox ORDER BY seq`)) as { subject: string; payload: unknown }[];
    const types = new Set(rows.map((r) => r.subject.split('.events.')[1]?.replace(/^(outbound|reference)\./, '')));
    expect(types).toContain('invoice.voided');
    const sources = new Set(rows.filter((r) => r.subject.includes('.events.posting.')).map((r) => (r.payload as { source: { type: string } }).source.type));
    expect(sources).toContain('invoice_void');
    expect(catalogueErrors(prefix, rows)).toEqual([]);
  });
});
