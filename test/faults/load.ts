import { randomUUID } from 'node:crypto';

/** Customer and vendor e-mails of the load end with this: the log scan looks for it in every line. */
export const EMAIL_DOMAIN = 'leakcheck.faults.example';

/** A write the gateway acknowledged with a 2xx. */
export type Ack =
  | { kind: 'customer'; ext: string; id: string; email: string }
  | {
      kind: 'invoice';
      ext: string;
      id: string;
      customerId: string;
      totalCents: number;
    }
  | { kind: 'post'; ext: string; id: string }
  | {
      kind: 'payment';
      ext: string;
      id: string;
      invoiceId: string;
      amountCents: number;
    }
  | {
      kind: 'event';
      ext: string;
      id: string;
      paymentExt: string;
      invoiceId: string;
      amountCents: number;
    }
  | { kind: 'vendor'; ext: string; id: string; email: string }
  | { kind: 'bill'; ext: string; id: string; vendorId: string; totalCents: number }
  | {
      kind: 'vendor_payment';
      ext: string;
      id: string;
      vendorId: string;
      billId: string;
      amountCents: number;
    }
  | { kind: 'bill_reversal'; ext: string; id: string };

export type AckKind = Ack['kind'];
/** The writes each service books: progress after a fault is counted for each. */
export const RECEIVABLES_KINDS: readonly AckKind[] = ['customer', 'invoice', 'post', 'payment', 'event'];
export const PAYABLES_KINDS: readonly AckKind[] = ['vendor', 'bill', 'vendor_payment', 'bill_reversal'];

/** The `what` of payables' writes (the rest are receivables'). */
const PAYABLES_WRITES = new Set(['vendor', 'bill', 'bill reversal', 'vendor payment']);

/** A final answer that was not the expected 2xx (or a request that never got a final answer). */
export interface Unexpected {
  what: string;
  status: number | 'gave_up';
  attempts: number;
  body: unknown;
}

export interface LoadStats {
  requests: number;
  /** Attempts answered 5xx, failed on the network (reset, refused, timeout), or 409 in_flight. */
  retried5xx: number;
  retriedNetwork: number;
  retriedInFlight: number;
  /** Longest time one request spent retrying before its final answer, ms. */
  longestRetryMs: number;
  /** Requests that needed more than one attempt. */
  retriedRequests: number;
  /** A 409 as final answer to a request that had been sent before: the retry did not converge. */
  conflictsAfterRetry: number;
  /**
   * Retried writes answered Idempotent-Replayed: an earlier attempt had committed but its answer
   * was lost to a fault (the case where a write could have been doubled).
   */
  replayedAfterRetry: number;
  /** Attempts answered 500 internal_error: a fault (Postgres, NATS, a crash) must never cause one. */
  status500: number;
  /** The first few of them (request, request id), to find in the logs. */
  samples500: string[];
  /** Attempts answered 503 (service_unavailable), and of those without a Retry-After header. */
  status503: number;
  status503WithoutRetryAfter: number;
  /** Per service: writes that needed more than one attempt, and of those, answered as replays. */
  byService: Record<'receivables' | 'payables', { retried: number; replayed: number }>;
}

interface Final {
  status: number;
  json: any;
  attempts: number;
  replayed: boolean;
}

/** Per request: how long a well-behaved client keeps retrying before it gives up. */
const REQUEST_DEADLINE_MS = 200_000;
const ATTEMPT_TIMEOUT_MS = 20_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A steady write load through the gateway: workers each alternate two chains, receivables'
 * customer → invoice → post → payments (POST /payments and a payment.received event) and
 * payables' vendor → bill (posted) → vendor payments allocating part or all of it, or a reversal
 * of the unpaid bill. Every request is retried with the same body
 * (same external ids, same Idempotency-Key) on a network error, a 5xx or a 409 in_flight ("retry
 * shortly"), until it gets another answer, as a well-behaved client does.
 */
export class WriteLoad {
  readonly acks: Ack[] = [];
  readonly unexpected: Unexpected[] = [];
  readonly stats: LoadStats = {
    requests: 0,
    retried5xx: 0,
    retriedNetwork: 0,
    retriedInFlight: 0,
    longestRetryMs: 0,
    retriedRequests: 0,
    conflictsAfterRetry: 0,
    replayedAfterRetry: 0,
    status500: 0,
    samples500: [],
    status503: 0,
    status503WithoutRetryAfter: 0,
    byService: { receivables: { retried: 0, replayed: 0 }, payables: { retried: 0, replayed: 0 } },
  };
  private stopping = false;
  private workers: Promise<void>[] = [];
  private seed: number;

  constructor(
    private readonly base: string,
    private readonly apiKey: string,
    seed = 20261201,
  ) {
    this.seed = seed;
  }

  /** Seeded, so the shape of a failing run can be replayed (the timing cannot). */
  private rand(n: number): number {
    this.seed = (this.seed * 1103515245 + 12345) % 2 ** 31;
    // The high bits: the low bits of this generator repeat with a short period.
    return Math.floor((this.seed / 2 ** 31) * n);
  }

  get acked(): number {
    return this.acks.length;
  }

  /** Acknowledged writes of these kinds (one service's). */
  ackedOf(kinds: readonly AckKind[]): number {
    return this.acks.filter((a) => kinds.includes(a.kind)).length;
  }

  start(workers: number): void {
    for (let w = 0; w < workers; w++) this.workers.push(this.worker(w));
  }

  /** Lets every worker finish the chain it is in (with its retries), then resolves. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.workers);
  }

  private async worker(w: number): Promise<void> {
    for (let round = w; !this.stopping; round++) {
      try {
        // Alternating, and out of step between workers: both services always have writes in flight.
        await (round % 2 === 0 ? this.chain(w) : this.payablesChain(w));
      } catch (e) {
        // A request that never converged: recorded, and this worker stops (its chain is broken).
        this.unexpected.push({
          what: `worker ${w}`,
          status: 'gave_up',
          attempts: 0,
          body: String(e),
        });
        return;
      }
    }
  }

  private async send(method: string, path: string, body: unknown, idempotencyKey?: string): Promise<Final> {
    const started = Date.now();
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.apiKey}`,
      'content-type': 'application/json',
    };
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    for (let attempt = 1; ; attempt++) {
      if (Date.now() - started > REQUEST_DEADLINE_MS) throw new Error(`${method} ${path}: no final answer after ${attempt - 1} attempts in ${REQUEST_DEADLINE_MS} ms`);
      this.stats.requests++;
      let status: number;
      let json: any;
      let replayed: boolean;
      try {
        const res = await fetch(`${this.base}${path}`, {
          method,
          headers,
          body: payload,
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        status = res.status;
        replayed = res.headers.get('idempotent-replayed') === 'true';
        if (status === 503) {
          this.stats.status503++;
          if (!res.headers.get('retry-after')) this.stats.status503WithoutRetryAfter++;
        }
        const text = await res.text();
        try {
          json = JSON.parse(text);
        } catch {
          json = text;
        }
      } catch {
        this.stats.retriedNetwork++;
        await sleep(Math.min(1000, 100 * 2 ** attempt));
        continue;
      }
      if (status === 500) {
        this.stats.status500++;
        if (this.stats.samples500.length < 5) this.stats.samples500.push(`${method} ${path}: ${JSON.stringify(json).slice(0, 300)}`);
      }
      const inFlight = status === 409 && (json?.error?.details ?? []).some((d: { issue?: string }) => d.issue === 'in_flight');
      if (status >= 500 || inFlight) {
        if (inFlight) this.stats.retriedInFlight++;
        else this.stats.retried5xx++;
        await sleep(Math.min(1000, 100 * 2 ** attempt));
        continue;
      }
      if (attempt > 1) {
        this.stats.retriedRequests++;
        this.stats.longestRetryMs = Math.max(this.stats.longestRetryMs, Date.now() - started);
        if (status === 409) this.stats.conflictsAfterRetry++;
        if (replayed) this.stats.replayedAfterRetry++;
      }
      return { status, json, attempts: attempt, replayed };
    }
  }

  /** Sends a write and returns its data when the answer is 2xx; records anything else. */
  private async write(what: string, method: string, path: string, body: unknown, idempotencyKey?: string): Promise<any> {
    const r = await this.send(method, path, body, idempotencyKey);
    if (r.attempts > 1) {
      const of = this.stats.byService[PAYABLES_WRITES.has(what) ? 'payables' : 'receivables'];
      of.retried++;
      if (r.replayed) of.replayed++;
    }
    if (r.status < 200 || r.status > 299) {
      this.unexpected.push({
        what: `${what} ${method} ${path}`,
        status: r.status,
        attempts: r.attempts,
        body: r.json,
      });
      return undefined;
    }
    return r.json?.data;
  }

  private async chain(w: number): Promise<void> {
    const tag = randomUUID();
    // Customer: the external id makes the create retry-safe.
    const email = `faults-${tag.slice(0, 8)}@${EMAIL_DOMAIN}`;
    const cusExt = `cus-${tag}`;
    const cus = await this.write('customer', 'POST', '/api/v1/customers', {
      external_customer_id: cusExt,
      name: `Fault ${w}`,
      email,
    });
    if (!cus) return;
    this.acks.push({ kind: 'customer', ext: cusExt, id: cus.id, email });

    // Invoice: two lines, total known in advance.
    const unit = 1000 + this.rand(20_000);
    const totalCents = unit + 2 * 150;
    const invExt = `inv-${tag}`;
    const inv = await this.write('invoice', 'POST', '/api/v1/invoices', {
      external_invoice_id: invExt,
      customer_id: cus.id,
      invoice_number: `F-${tag.slice(0, 8)}`,
      issue_date: '2026-03-01',
      due_date: '2026-03-31',
      line_items: [
        { description: 'Work', quantity: 1, unit_amount_cents: unit },
        { description: 'Fees', quantity: 2, unit_amount_cents: 150 },
      ],
    });
    if (!inv) return;
    this.acks.push({
      kind: 'invoice',
      ext: invExt,
      id: inv.id,
      customerId: cus.id,
      totalCents,
    });

    // Some invoices stay drafts.
    if (this.rand(100) < 15) return;
    // Posting has no external id: the Idempotency-Key makes the retry the same request.
    const posted = await this.write('post', 'POST', `/api/v1/invoices/${inv.id}/post`, undefined, `post-${tag}`);
    if (!posted) return;
    if (posted.status !== 'open')
      this.unexpected.push({
        what: 'post: status',
        status: 200,
        attempts: 1,
        body: posted,
      });
    this.acks.push({ kind: 'post', ext: invExt, id: inv.id });

    // Payments: none, manual part, manual part + event rest, or event part.
    const plan = this.rand(4);
    let paid = 0;
    if (plan === 1 || plan === 2) {
      const amountCents = 1 + this.rand(totalCents - 1);
      const payExt = `pay-${tag}-m`;
      const pay = await this.write('payment', 'POST', '/api/v1/payments', {
        external_payment_id: payExt,
        invoice_id: inv.id,
        amount_cents: amountCents,
        received_at: '2026-03-05',
      });
      if (!pay) return;
      this.acks.push({
        kind: 'payment',
        ext: payExt,
        id: pay.id,
        invoiceId: inv.id,
        amountCents,
      });
      paid = amountCents;
    }
    if (plan === 2 || plan === 3) {
      const amountCents = plan === 2 ? totalCents - paid : 1 + this.rand(totalCents);
      const evtExt = `evt-${tag}`;
      const paymentExt = `pay-${tag}-e`;
      // POST /events dedupes on external_event_id and on the forwarded Idempotency-Key.
      const evt = await this.write(
        'event',
        'POST',
        '/api/v1/events',
        {
          event_type: 'payment.received',
          external_event_id: evtExt,
          payload: {
            external_payment_id: paymentExt,
            external_invoice_id: invExt,
            amount_cents: amountCents,
            received_at: '2026-03-06T10:00:00Z',
            processor: 'stripe',
          },
        },
        `evt-${tag}`,
      );
      if (!evt) return;
      if (evt.status !== 'processed') {
        this.unexpected.push({
          what: 'event: status',
          status: 200,
          attempts: 1,
          body: evt,
        });
        return;
      }
      this.acks.push({
        kind: 'event',
        ext: evtExt,
        id: evt.id,
        paymentExt,
        invoiceId: inv.id,
        amountCents,
      });
    }
  }

  /**
   * Payables: vendor → bill (posted on create) → none, one vendor payment allocating part of the
   * bill, two paying it in full, or a reversal of the unpaid bill.
   */
  private async payablesChain(w: number): Promise<void> {
    const tag = randomUUID();
    const email = `ap-${tag.slice(0, 8)}@${EMAIL_DOMAIN}`;
    const venExt = `ven-${tag}`;
    const ven = await this.write('vendor', 'POST', '/api/v1/vendors', {
      external_vendor_id: venExt,
      display_name: `Fault vendor ${w}`,
      email,
    });
    if (!ven) return;
    this.acks.push({ kind: 'vendor', ext: venExt, id: ven.id, email });

    const unit = 1000 + this.rand(20_000);
    const totalCents = unit + 3 * 250;
    const billExt = `bill-${tag}`;
    const bill = await this.write('bill', 'POST', '/api/v1/bills', {
      external_bill_id: billExt,
      vendor_id: ven.id,
      bill_number: `FB-${tag.slice(0, 8)}`,
      issue_date: '2026-03-02',
      due_date: '2026-04-01',
      line_items: [
        { description: 'Supplies', quantity: 1, unit_amount_cents: unit },
        { description: 'Freight', quantity: 3, unit_amount_cents: 250 },
      ],
    });
    if (!bill) return;
    if (bill.status !== 'posted' || bill.open_balance_cents !== totalCents) {
      this.unexpected.push({ what: 'bill: status', status: 201, attempts: 1, body: bill });
      return;
    }
    this.acks.push({ kind: 'bill', ext: billExt, id: bill.id, vendorId: ven.id, totalCents });

    const plan = this.rand(5);
    if (plan === 4) {
      // A reversal has no external id: the Idempotency-Key makes the retry the same request (and
      // a reversed bill answers a repeat as a replay anyway).
      const reversed = await this.write('bill reversal', 'POST', `/api/v1/bills/${bill.id}/reverse`, { reversal_reason: 'Entered in error' }, `rev-${tag}`);
      if (!reversed) return;
      if (reversed.status !== 'reversed') this.unexpected.push({ what: 'bill reversal: status', status: 200, attempts: 1, body: reversed });
      this.acks.push({ kind: 'bill_reversal', ext: billExt, id: bill.id });
      return;
    }
    if (plan === 0) return;
    // Part of the bill; with plan 3 a second payment pays the rest.
    const first = 1 + this.rand(totalCents - 1);
    const amounts = plan === 3 ? [first, totalCents - first] : [first];
    for (const [k, amountCents] of amounts.entries()) {
      const vpExt = `vp-${tag}-${k}`;
      const vp = await this.write('vendor payment', 'POST', '/api/v1/vendor-payments', {
        external_vendor_payment_id: vpExt,
        vendor_id: ven.id,
        amount_cents: amountCents,
        payment_date: '2026-03-10',
        allocations: [{ bill_id: bill.id, amount_cents: amountCents }],
      });
      if (!vp) return;
      if (vp.status !== 'posted') {
        this.unexpected.push({ what: 'vendor payment: status', status: 201, attempts: 1, body: vp });
        return;
      }
      this.acks.push({ kind: 'vendor_payment', ext: vpExt, id: vp.id, vendorId: ven.id, billId: bill.id, amountCents });
    }
  }
}
