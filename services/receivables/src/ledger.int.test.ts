import { randomBytes, randomUUID } from 'node:crypto';
import type { JetStreamManager } from 'nats';
import { type RpcReply, type RpcRequest, type TrustedContext, eventsStreamName } from '@acct/contracts';
import type { Outbox } from '@acct/kit';
import { BooksLockCheck, catalogueErrors, verifyChain } from '@acct/posting';
import { type TestService, ctx, entryLines, expectRelayHeals, firstRow, startServiceForTest, withBatchSpies, withStatementLog } from '@acct/testing';
import { POST_DRAFTS_BATCH } from './queries';
import { receivablesService } from './service';

/**
 * The books against real Postgres and NATS JetStream: atomic postings, the outbox, concurrency,
 * and the invariants (debits = credits, A/R = open invoice balances) after a random sequence.
 */
describe('receivables books against real Postgres and JetStream', () => {
  let svc: TestService;
  let jsm: JetStreamManager;
  let prefix: string;
  let outbox: Outbox;

  type Ctx = TrustedContext;
  const call = (op: Parameters<TestService['call']>[0], c: Ctx, over: Partial<RpcRequest> = {}): Promise<RpcReply<any>> => svc.call(op, c, over);
  const sql = (q: string, params: unknown[] = []) => svc.sql(q, params);

  async function customer(c: Ctx): Promise<string> {
    return (await svc.ok('customers.create', c, { body: { external_customer_id: randomUUID(), name: 'C' } })).id;
  }
  async function postedInvoice(c: Ctx, totalCents: number, customerId?: string): Promise<{ id: string; external: string }> {
    const external = randomUUID();
    const inv = await svc.ok('invoices.create', c, {
      body: {
        external_invoice_id: external,
        customer_id: customerId ?? (await customer(c)),
        invoice_number: 'INV',
        issue_date: '2026-01-10',
        due_date: '2026-02-10',
        line_items: [{ description: 'x', quantity: 1, unit_amount_cents: totalCents }],
      },
    });
    await svc.ok('invoices.post', c, { params: { id: inv.id } });
    return { id: inv.id, external };
  }
  /** A draft invoice of one line of `cents` for the customer; its id. */
  async function draftOf(c: Ctx, customerId: string, cents: number): Promise<string> {
    const body = {
      external_invoice_id: randomUUID(),
      customer_id: customerId,
      invoice_number: 'G',
      issue_date: '2026-01-10',
      due_date: '2026-02-10',
      line_items: [{ description: 'x', quantity: 1, unit_amount_cents: cents }],
    };
    return (await svc.ok('invoices.create', c, { body })).id as string;
  }
  const pay = (c: Ctx, invoiceId: string, amount: number, external = randomUUID()) =>
    call('payments.create', c, { body: { external_payment_id: external, invoice_id: invoiceId, amount_cents: amount, received_at: '2026-01-15' } });

  async function streamMessages(): Promise<number> {
    return (await jsm.streams.info(eventsStreamName(prefix))).state.messages;
  }

  beforeAll(async () => {
    svc = await startServiceForTest(receivablesService({ config: { processorSecretKey: randomBytes(32) } }));
    ({ prefix } = svc);
    outbox = svc.wiring.outbox!;
    jsm = await svc.nc.jetstreamManager();
  });

  afterAll(() => svc.stop());

  it('posts the drafts that arrive together in one group: each once, a repeat replayed, a missing one 404, a void one 409', async () => {
    const c = ctx();
    const cust = await customer(c);
    const draft = (cents: number) => draftOf(c, cust, cents);
    const ids = await Promise.all([100, 200, 300, 0, 400].map(draft));
    const voided = await draft(500);
    await svc.ok('invoices.void', c, { params: { id: voided } });
    const missing = randomUUID();
    const post = (id: string) => call('invoices.post', c, { params: { id } });
    const replies = await Promise.all([...ids.map(post), post(ids[0]!), post(missing), post(voided), post(ids[1]!.toUpperCase())]);
    const statuses = replies.map((r) => (r.ok ? `${r.status}${r.replayed ? ' replayed' : ''} ${String(r.body.data.status)}` : r.error.code));
    // Of two posts of one draft, either may come first (a group that fails runs its works again
    // alone, concurrently): one posts it, the other replays it.
    const pair = (i: number, j: number) => [statuses[i], statuses[j]].sort();
    expect(pair(0, 5)).toEqual(['200 open', '200 replayed open']);
    expect(pair(1, 8)).toEqual(['200 open', '200 replayed open']);
    expect([statuses[2], statuses[3], statuses[4], statuses[6], statuses[7]]).toEqual(['200 open', '200 paid', '200 open', 'not_found', 'conflict']);
    // One entry per posted draft with a total, on the id the invoice names; none for the zero total.
    const rows = (await sql(
      `SELECT i.id, i.journal_entry_id, (SELECT count(*)::int FROM journal_entries e WHERE e.source_type = 'invoice' AND e.source_id = i.id) AS entries
       FROM invoices i WHERE i.id = ANY(?::uuid[]) ORDER BY i.total_cents`,
      [`{${ids.join(',')}}`],
    )) as { id: string; journal_entry_id: string | null; entries: number }[];
    expect(rows.map((r) => r.entries)).toEqual([0, 1, 1, 1, 1]);
    for (const r of rows.filter((x) => x.entries === 1)) {
      expect(await sql(`SELECT id FROM journal_entries WHERE source_type = 'invoice' AND source_id = ?`, [r.id])).toEqual([{ id: r.journal_entry_id }]);
    }
    expect(rows[0]!.journal_entry_id).toBeNull();
    // The group's statement reads the books' lock of its scope too: locked books refuse every post of
    // the group (each run again alone), and leave every draft a draft with no entry.
    const more = await Promise.all([700, 800, 900].map(draft));
    await sql(`UPDATE books_lock SET lock_date = '2026-06-30', version = version + 1 WHERE organization_id = ?`, [c.organizationId]);
    const primed = jest.spyOn(BooksLockCheck.prototype, 'prime');
    try {
      const locked = await Promise.all(more.map(post));
      expect(locked.map((r) => (r.ok ? 'ok' : `${r.error.code} ${r.error.details[0]?.field}`))).toEqual(Array(3).fill('period_locked /issue_date'));
      expect(primed.mock.calls.some(([scope, date]) => scope.organizationId === c.organizationId && date === '2026-06-30')).toBe(true);
    } finally {
      primed.mockRestore();
    }
    const still = await sql(`SELECT status, journal_entry_id FROM invoices WHERE id = ANY(?::uuid[])`, [`{${more.join(',')}}`]);
    expect(still).toEqual(Array(3).fill({ status: 'draft', journal_entry_id: null }));
  });

  it('posts the drafts of a group in one transaction, marked by one batch: replies as stored, one entry each, events published', async () => {
    const c = ctx();
    const first = await postedInvoice(c, 100); // a group of one: the scope's chart, chain head and lock row
    const cust = await customer(c);
    const drafts = await Promise.all([250, 0, 999].map((cents) => draftOf(c, cust, cents)));
    const before = await streamMessages();
    const written = async () => (await svc.metrics.groupCommits.get()).values.find((v) => v.labels.way === 'committed')?.value ?? 0;
    const writtenBefore = await written();
    await withBatchSpies(POST_DRAFTS_BATCH, async ({ run }) => {
      const replies = await Promise.all(drafts.map((id) => svc.ok('invoices.post', c, { params: { id } })));
      expect(run.mock.calls.map(([, items]) => items.length)).toEqual([3]);
      expect(await written()).toBe(writtenBefore + 1); // the service's books count it (ledger_group_commits_total)
      for (const [i, id] of drafts.entries()) expect(replies[i]).toEqual(await svc.ok('invoices.get', c, { params: { id } }));
      expect(replies.map((r) => r.status)).toEqual(['open', 'paid', 'open']);
    });
    const rows = (await sql(
      `SELECT i.journal_entry_id, (SELECT count(*)::int FROM journal_entries e WHERE e.source_type = 'invoice' AND e.source_id = i.id) AS entries
       FROM invoices i WHERE i.id = ANY(?::uuid[]) ORDER BY i.total_cents`,
      [`{${drafts.join(',')}}`],
    )) as { journal_entry_id: string | null; entries: number }[];
    expect(rows.map((r) => [r.journal_entry_id === null, r.entries])).toEqual([
      [true, 0],
      [false, 1],
      [false, 1],
    ]);
    expect(await streamMessages()).toBe(before + 5); // two posting events, three invoice.posted
    expect(await verifyChain(svc.orm, { organizationId: c.organizationId, environment: c.environment })).toMatchObject({ firstBrokenEntryId: null, entries: 3 });
    expect(first.id).toBeDefined();
  });

  it('posts a draft alone in four round trips: BEGIN, the drafts locked, one chained write (entry, mark, outbox), COMMIT', async () => {
    const c = ctx();
    const cust = await customer(c);
    await postedInvoice(c, 100, cust); // the scope's chart and chain head
    const id = await draftOf(c, cust, 250);
    await withStatementLog(async ({ transactionOf }) => {
      await svc.ok('invoices.post', c, { params: { id } });
      expect(transactionOf('invoice_lock_drafts')).toEqual(['BEGIN', 'invoice_lock_drafts', 'ledger_write_chained_outbox_insert_invoice_mark_posted', 'COMMIT']);
    });
  });

  it('posts an invoice as one balanced entry and publishes its events before replying', async () => {
    const before = await streamMessages();
    const c = ctx();
    const inv = await postedInvoice(c, 12_345);
    const lines = await entryLines(sql, 'invoice', inv.id, 'l.account_code, l.side, l.amount_cents::int AS amount, l.invoice_id');
    expect(lines).toEqual([
      { account_code: '1100', side: 'debit', amount: 12_345, invoice_id: inv.id },
      { account_code: '4000', side: 'credit', amount: 12_345, invoice_id: inv.id },
    ]);
    // customer.created (its customer), then the posting event + invoice.posted, already in the
    // stream when the reply came back
    expect(await streamMessages()).toBe(before + 3);
    // Rows are marked published in a batch right after.
    await outbox.flushMarks();
    const { unpublished } = firstRow(await sql(`SELECT count(*)::int AS unpublished FROM outbox WHERE published_at IS NULL`));
    expect(unpublished).toBe(0);
  });

  it('posts in a new organization whose first posted invoice had nothing to book (zero total)', async () => {
    const c = ctx();
    const zero = await postedInvoice(c, 0);
    expect(firstRow(await sql(`SELECT status FROM invoices WHERE id = ?`, [zero.id])).status).toBe('paid');
    const inv = await postedInvoice(c, 250);
    expect(firstRow(await sql(`SELECT status FROM invoices WHERE id = ?`, [inv.id])).status).toBe('open');
  });

  it('refuses an unbalanced entry in the database itself, at commit', async () => {
    const c = ctx();
    await postedInvoice(c, 100); // creates the chart of accounts of this organization
    const entryId = randomUUID();
    const attempt = svc.orm.em.fork().transactional(async (em) => {
      await em.execute(`INSERT INTO journal_entries (id, organization_id, environment, entry_date, source_type, source_id) VALUES (?, ?, 'test', '2026-01-01', 'manual', ?)`, [
        entryId,
        c.organizationId,
        randomUUID(),
      ]);
      await em.execute(
        `INSERT INTO journal_lines (entry_id, line_no, account_id, account_code, side, amount_cents)
         SELECT ?, 1, id, code, 'debit', 500 FROM ledger_accounts WHERE organization_id = ? AND environment = 'test' AND code = '1000'`,
        [entryId, c.organizationId],
      );
    });
    await expect(attempt).rejects.toThrow(/unbalanced/);
    expect(await sql(`SELECT id FROM journal_entries WHERE id = ?`, [entryId])).toEqual([]);
  });

  it('heals a crash between commit and publish: the relay publishes exactly one message per row', async () => {
    const c = ctx();
    const custId = await customer(c);
    // The posting event and invoice.posted of one invoice.
    await expectRelayHeals(svc, () => postedInvoice(c, 777, custId), 2);
  });

  it('writes nothing and publishes nothing for a refused payment', async () => {
    const c = ctx();
    const inv = await postedInvoice(c, 1000);
    const { n: outboxBefore } = firstRow(await sql(`SELECT count(*)::int AS n FROM outbox`));
    const r = await pay(c, inv.id, 1001);
    expect(r.ok ? 'ok' : r.error.details[0]?.issue).toBe('exceeds_open_balance');
    const { n: outboxAfter } = firstRow(await sql(`SELECT count(*)::int AS n FROM outbox`));
    expect(outboxAfter).toBe(outboxBefore);
    expect(await sql(`SELECT id FROM payments WHERE invoice_id = ?`, [inv.id])).toEqual([]);
  });

  it('never overpays an invoice when payments race', async () => {
    const c = ctx();
    const inv = await postedInvoice(c, 1000);
    const replies = await Promise.all([600, 600, 600, 600].map((a) => pay(c, inv.id, a)));
    const statuses = replies.map((r) => (r.ok ? 'ok' : r.error.code)).sort();
    expect(statuses).toEqual(['conflict', 'conflict', 'conflict', 'ok']);
    const [row] = await sql(`SELECT paid_cents::int AS paid, status FROM invoices WHERE id = ?`, [inv.id]);
    expect(row).toEqual({ paid: 600, status: 'partially_paid' });
    // Many racing payments that do fit all land, and the sum is exact.
    const rest = await Promise.all(Array.from({ length: 8 }, () => pay(c, inv.id, 50)));
    expect(rest.every((r) => r.ok)).toBe(true);
    const [done] = await sql(`SELECT paid_cents::int AS paid, status FROM invoices WHERE id = ?`, [inv.id]);
    expect(done).toEqual({ paid: 1000, status: 'paid' });
  });

  it('creates exactly one payment when retries of one external_payment_id race', async () => {
    const c = ctx();
    const inv = await postedInvoice(c, 1000);
    const external = randomUUID();
    const replies = await Promise.all(Array.from({ length: 10 }, () => pay(c, inv.id, 100, external)));
    const statuses = replies.map((r) => (r.ok ? r.status : r.error.code)).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const { n } = firstRow(await sql(`SELECT count(*)::int AS n FROM payments WHERE external_payment_id = ?`, [external]));
    expect(n).toBe(1);
    const [row] = await sql(`SELECT paid_cents::int AS paid FROM invoices WHERE id = ?`, [inv.id]);
    expect(row?.paid).toBe(100);
  });

  it('reverses a payment once when refund events for it race', async () => {
    const c = ctx();
    const inv = await postedInvoice(c, 900);
    const externalPayment = randomUUID();
    const received = await svc.ok('events.create', c, {
      body: {
        event_type: 'payment.received',
        external_event_id: randomUUID(),
        payload: { external_payment_id: externalPayment, external_invoice_id: inv.external, amount_cents: 900, received_at: '2026-01-20' },
      },
    });
    expect(received.status).toBe('processed');
    const refunds = await Promise.all(
      Array.from({ length: 6 }, () =>
        call('events.create', c, { body: { event_type: 'payment.refunded', external_event_id: randomUUID(), payload: { external_payment_id: externalPayment } } }),
      ),
    );
    // One refund is processed; the others find the payment refunded and are stored, saying so.
    expect(refunds.map((r) => (r.ok ? r.body.data.status : r.error.code)).sort()).toEqual(['processed', 'stored', 'stored', 'stored', 'stored', 'stored']);
    for (const r of refunds) {
      if (r.ok && r.body.data.status === 'stored') expect(r.body.data.details).toEqual([expect.objectContaining({ issue: 'already_refunded' })]);
    }
    const reversals = await sql(`SELECT id FROM journal_entries WHERE source_type = 'payment' AND source_id = ? AND reverses_entry_id IS NOT NULL`, [received.payment_id]);
    expect(reversals).toHaveLength(1);
    const [row] = await sql(`SELECT paid_cents::int AS paid, status FROM invoices WHERE id = ?`, [inv.id]);
    expect(row).toEqual({ paid: 0, status: 'open' });
  });

  it('answers every event when events reuse one external_payment_id for different invoices at once', async () => {
    const c = ctx();
    const invoices = await Promise.all([postedInvoice(c, 500), postedInvoice(c, 500), postedInvoice(c, 500)]);
    const externalPayment = randomUUID();
    const replies = await Promise.all(
      invoices.map((inv) =>
        call('events.create', c, {
          body: {
            event_type: 'payment.received',
            external_event_id: randomUUID(),
            payload: { external_payment_id: externalPayment, external_invoice_id: inv.external, amount_cents: 100, received_at: '2026-01-21' },
          },
        }),
      ),
    );
    const statuses = replies.map((r) => (r.ok ? r.body.data.status : r.error.code)).sort();
    expect(statuses).toEqual(['failed', 'failed', 'processed']);
    const { n } = firstRow(await sql(`SELECT count(*)::int AS n FROM payments WHERE external_payment_id = ?`, [externalPayment]));
    expect(n).toBe(1);
  });

  it('keeps debits = credits and A/R = open invoice balances after a random sequence of calls', async () => {
    // A seeded generator, so a failure can be replayed.
    let seed = 20261122;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pick = <T>(items: readonly T[]): T => {
      const item = items[rand(items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    };
    const c = ctx();
    const customers = [await customer(c), await customer(c), await customer(c)];
    const invoices: Array<{ id: string; external: string; posted: boolean }> = [];
    const eventPayments: string[] = [];
    for (let step = 0; step < 120; step++) {
      const op = rand(7);
      if (op === 0 || invoices.length === 0) {
        const external = randomUUID();
        const inv = await svc.ok('invoices.create', c, {
          body: {
            external_invoice_id: external,
            customer_id: pick(customers),
            invoice_number: `R-${step}`,
            issue_date: '2026-02-01',
            due_date: '2026-03-01',
            line_items: [
              { description: 'a', quantity: 1 + rand(3) + rand(10) / 4, unit_amount_cents: 1 + rand(5000) },
              { description: 'b', quantity: 0.3333, unit_amount_cents: rand(999) },
            ],
          },
        });
        invoices.push({ id: inv.id, external, posted: false });
      } else if (op === 1) {
        const inv = pick(invoices);
        await svc.ok('invoices.post', c, { params: { id: inv.id } });
        inv.posted = true;
      } else if (op === 2 || op === 3) {
        await pay(c, pick(invoices).id, 1 + rand(3000)); // may be refused: fine
      } else if (op === 4) {
        const inv = pick(invoices);
        const external = randomUUID();
        const r = await call('events.create', c, {
          body: {
            event_type: 'payment.received',
            external_event_id: randomUUID(),
            payload: { external_payment_id: external, external_invoice_id: inv.external, amount_cents: 1 + rand(2000), received_at: '2026-02-05T10:00:00Z', processor: 'stripe' },
          },
        });
        if (r.ok && r.body.data.status === 'processed') eventPayments.push(external);
      } else if (op === 5 && eventPayments.length) {
        const external = eventPayments.splice(rand(eventPayments.length), 1)[0];
        await svc.ok('events.create', c, { body: { event_type: 'payment.refunded', external_event_id: randomUUID(), payload: { external_payment_id: external } } });
      } else {
        const gross = rand(10_000);
        const fee = rand(gross + 1);
        await svc.ok('payouts.create', c, {
          body: { external_payout_id: randomUUID(), processor: 'stripe', payout_date: '2026-02-10', gross_cents: gross, fee_cents: fee, net_cents: gross - fee },
        });
      }
    }
    const totals = firstRow(
      await sql(
        `SELECT coalesce(sum(amount_cents) FILTER (WHERE side = 'debit'), 0)::bigint AS debits,
              coalesce(sum(amount_cents) FILTER (WHERE side = 'credit'), 0)::bigint AS credits,
              coalesce(sum(CASE WHEN account_code = '1100' THEN CASE side WHEN 'debit' THEN amount_cents ELSE -amount_cents END END), 0)::bigint AS ar
         FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id
        WHERE e.organization_id = ? AND e.environment = 'test'`,
        [c.organizationId],
      ),
    );
    const open = firstRow(
      await sql(`SELECT coalesce(sum(total_cents - paid_cents), 0)::bigint AS open FROM invoices WHERE organization_id = ? AND environment = 'test' AND status <> 'draft'`, [
        c.organizationId,
      ]),
    );
    expect(Number(totals.debits)).toBeGreaterThan(0);
    expect(totals.debits).toBe(totals.credits);
    expect(totals.ar).toBe(open.open);
    // Each payment's balance effect agrees with its invoice, per invoice.
    const perInvoice = await sql(
      `SELECT i.id, (i.total_cents - i.paid_cents)::bigint AS open,
              coalesce((SELECT sum(CASE side WHEN 'debit' THEN amount_cents ELSE -amount_cents END) FROM journal_lines
                         WHERE invoice_id = i.id AND account_code = '1100'), 0)::bigint AS ar
         FROM invoices i WHERE i.organization_id = ? AND i.status <> 'draft'`,
      [c.organizationId],
    );
    for (const r of perInvoice) expect({ id: r.id, ar: r.ar }).toEqual({ id: r.id, ar: r.open });
  });

  it('wrote only events of the catalogue: every outbox row of this file validates against EventMap', async () => {
    const rows = (await sql(`SELECT subject, payload FROM outbox ORDER BY seq`)) as { subject: string; payload: unknown }[];
    const types = new Set(rows.map((r) => r.subject.split('.events.')[1]?.replace(/^(outbound|reference)\./, '')));
    // Every kind the service writes is among them, so the check below covers each of their schemas.
    for (const t of ['posting.receivables', 'customer.created', 'invoice.posted', 'payment.posted', 'invoice.paid', 'invoice.partially_paid']) expect(types).toContain(t);
    const sources = new Set(rows.filter((r) => r.subject.includes('.events.posting.')).map((r) => (r.payload as { source: { type: string } }).source.type));
    expect([...sources].sort()).toEqual(['invoice', 'payment', 'payment_refund', 'processor_payout']);
    expect(catalogueErrors(prefix, rows)).toEqual([]);
  });
});
