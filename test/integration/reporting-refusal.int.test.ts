import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import type { JetStreamManager } from 'nats';
import { CONSUMERS, type ParkedEventView, adminSubject, eventsStreamName, postingSubject } from '@acct/contracts';
import { decodeJson, encodeJson } from '@acct/kit';
import { ACCOUNT, accountId } from '@acct/ledger';
import { NATS_URL, type TestService, ctx, serviceDefinition, startServiceForTest, waitFor } from '@acct/testing';

const CLI = path.resolve(__dirname, '../../services/gateway/dist/admin/cli.js');

/**
 * Reporting is a trust boundary: messages published on the bus by hand (not by a posting service's
 * outbox) that break a posting rule, or that are no event at all, are parked with their raw bytes,
 * counted and never applied, not even by a rebuild; the operator lists, shows and discards them
 * with `npm run admin -- events parked ...`.
 */
describe('reporting refuses and parks what a posting service could not have published', () => {
  let ap: TestService;
  let rep: TestService;
  let jsm: JetStreamManager;
  const c = ctx();
  const tb = async () => rep.ok('reports.trial_balance', c, { query: { as_of: '2026-12-31' } });
  const entries = async () => (await rep.ok('journal_entries.list', c, { query: { limit: 100, offset: 0 } })).length as number;
  const cli = async (...args: string[]) => {
    const r = await promisify(execFile)(process.execPath, [CLI, ...args], { env: { ...process.env, NATS_URL, NATS_PREFIX: ap.prefix } });
    return r.stdout;
  };
  /** Waits until reporting's consumer has handled every message of the stream. */
  const caughtUp = () =>
    waitFor(async () => {
      const info = await jsm.consumers.info(eventsStreamName(ap.prefix), CONSUMERS.reportingPostings);
      const stream = await jsm.streams.info(eventsStreamName(ap.prefix));
      return info.num_pending === 0 && info.num_ack_pending === 0 && info.delivered.stream_seq === stream.state.last_seq;
    }, 20_000);

  beforeAll(async () => {
    ap = await startServiceForTest(serviceDefinition('payables'), { poolMax: 5 });
    rep = await startServiceForTest(serviceDefinition('reporting'), { nc: ap.nc, prefix: ap.prefix, workers: true, poolMax: 5 });
    jsm = await ap.nc.jetstreamManager();
  });

  afterAll(async () => {
    await rep?.stop();
    await ap?.stop();
  });

  it('parks the unbalanced entry of the issue, a source type of another service, an unknown account, non-JSON and id-less messages; the books stay balanced, and a rebuild applies none', async () => {
    // A real posting to copy from: a bill, as payables publishes it.
    const v = await ap.ok('vendors.create', c, { body: { external_vendor_id: randomUUID(), display_name: 'Acme' } });
    await ap.ok('bills.create', c, {
      body: {
        external_bill_id: randomUUID(),
        vendor_id: v.id,
        bill_number: 'B-1',
        issue_date: '2026-03-01',
        due_date: '2026-03-31',
        line_items: [{ description: 'x', quantity: 1, unit_amount_cents: 5000 }],
      },
    });
    const real = await jsm.streams.getMessage(eventsStreamName(ap.prefix), { last_by_subj: postingSubject(ap.prefix, 'payables') });
    await waitFor(async () => (await entries()) === 1);
    const before = { tb: await tb(), entries: await entries() };
    expect(before.tb.balanced).toBe(true);

    const template = decodeJson<any>(real.data);
    const line = (code: string, side: 'debit' | 'credit', amount: number) => ({
      account_id: accountId(c.organizationId, 'test', code),
      account_code: code,
      side,
      amount_cents: amount,
      customer_id: null,
      invoice_id: null,
      vendor_id: null,
      bill_id: null,
    });
    /** A copy of the real event under new ids (an entry no service has), changed by `f`. */
    const forged = (f: (e: any) => void = () => undefined) => {
      const e = structuredClone(template);
      e.id = randomUUID();
      e.entry.id = randomUUID();
      e.entry.source_id = randomUUID();
      f(e);
      return e;
    };
    const unbalanced = [line(ACCOUNT.expenses, 'debit', 7147), line(ACCOUNT.payable, 'credit', 6370)];
    const cases: { name: string; subject: string; data: Uint8Array; reason: string; error: RegExp }[] = [
      {
        name: 'the issue: debits 7,147, credits 6,370, source type "invoice", on the payables subject',
        subject: postingSubject(ap.prefix, 'payables'),
        data: encodeJson(forged((e) => ((e.entry.lines = unbalanced), (e.entry.source_type = 'invoice')))),
        reason: 'refused',
        error: /source_type bill, not "invoice"/,
      },
      {
        name: 'unbalanced',
        subject: postingSubject(ap.prefix, 'payables'),
        data: encodeJson(forged((e) => (e.entry.lines = unbalanced))),
        reason: 'refused',
        error: /^unbalanced: debits 7147 ≠ credits 6370$/,
      },
      {
        name: "a bill on receivables' subject",
        subject: postingSubject(ap.prefix, 'receivables'),
        data: encodeJson(forged()),
        reason: 'refused',
        error: /^source type bill is posted by payables, not by receivables$/,
      },
      {
        name: 'an account not in the chart',
        subject: postingSubject(ap.prefix, 'payables'),
        data: encodeJson(forged((e) => (e.entry.lines = [line('9999', 'debit', 100), line(ACCOUNT.payable, 'credit', 100)]))),
        reason: 'refused',
        error: /^unknown_account: line 1: unknown account 9999$/,
      },
      { name: 'non-JSON bytes', subject: postingSubject(ap.prefix, 'payables'), data: Uint8Array.from([0x80, 0x81, 0x00, 0x7b]), reason: 'malformed', error: /^not JSON/ },
      {
        name: 'JSON without an id',
        subject: postingSubject(ap.prefix, 'payables'),
        data: encodeJson({ type: 'journal_entry.posted', entry: template.entry }),
        reason: 'malformed',
        error: /no event id/,
      },
    ];
    const js = ap.nc.jetstream();
    const seqs: number[] = [];
    for (const k of cases) seqs.push((await js.publish(k.subject, k.data)).seq);
    await caughtUp();

    const rows = await rep.sql(`SELECT stream_seq::int AS seq, subject, reason, error, raw FROM parked_events WHERE consumer = ? ORDER BY stream_seq`, [
      CONSUMERS.reportingPostings,
    ]);
    expect(rows.map((r) => r.seq)).toEqual(seqs);
    rows.forEach((r, i) => {
      const k = cases[i]!;
      expect([k.name, r.subject, r.reason]).toEqual([k.name, k.subject, k.reason]);
      expect([k.name, r.error]).toEqual([k.name, expect.stringMatching(k.error)]);
      expect(Buffer.from(r.raw).equals(Buffer.from(k.data))).toBe(true);
    });
    // Nothing applied: the books are as they were, still balanced.
    expect({ tb: await tb(), entries: await entries() }).toEqual(before);
    const consumed = await rep.metrics.registry.getSingleMetricAsString('events_consumed_total');
    expect(consumed).toMatch(/consumer="reporting-postings",outcome="refused"[^}]*} 4/);
    expect(consumed).toMatch(/consumer="reporting-postings",outcome="malformed"[^}]*} 2/);
    expect(await rep.metrics.registry.getSingleMetricAsString('events_parked_messages')).toMatch(/consumer="reporting-postings"[^}]*} 6/);

    // The operator: list (both consumers are asked; the dispatcher is not running here), show, discard.
    const listed = await cli('events', 'parked', 'list', '--consumer', CONSUMERS.reportingPostings, '--json');
    const views = JSON.parse(listed) as ParkedEventView[];
    expect(views.map((e) => e.id)).toEqual(seqs.map((s) => `${CONSUMERS.reportingPostings}/${s}`));
    expect(views.map((e) => e.reason)).toEqual(cases.map((k) => k.reason));
    const shown = JSON.parse(await cli('events', 'parked', 'show', `${CONSUMERS.reportingPostings}/${seqs[4]}`)) as ParkedEventView;
    expect(shown).toMatchObject({ reason: 'malformed', raw_base64: Buffer.from(cases[4]!.data).toString('base64'), raw_text: null });
    const retried = await cli('events', 'parked', 'retry', `${CONSUMERS.reportingPostings}/${seqs[1]}`).catch((e: { stderr: string }) => e.stderr);
    expect(retried).toMatch(/still refused: unbalanced/);
    await cli('events', 'parked', 'discard', `${CONSUMERS.reportingPostings}/${seqs[4]}`);
    const after = JSON.parse(await cli('events', 'parked', 'list', '--consumer', CONSUMERS.reportingPostings, '--json')) as ParkedEventView[];
    expect(after.map((e) => e.stream_seq)).toEqual(seqs.filter((s) => s !== seqs[4]));
    expect(await rep.metrics.registry.getSingleMetricAsString('events_parked_messages')).toMatch(/consumer="reporting-postings"[^}]*} 5/);

    // A rebuild replays the whole stream: the real bill again, none of the parked ones; the discard holds.
    const reply = decodeJson<{ ok: boolean }>((await ap.nc.request(adminSubject(ap.prefix, 'reporting', 'rebuild'), new Uint8Array(), { timeout: 55_000 })).data);
    expect(reply).toMatchObject({ ok: true });
    expect({ tb: await tb(), entries: await entries() }).toEqual(before);
    const again = await rep.sql(`SELECT stream_seq::int AS seq, discarded_at IS NOT NULL AS discarded FROM parked_events WHERE consumer = ? ORDER BY stream_seq`, [
      CONSUMERS.reportingPostings,
    ]);
    expect(again).toEqual(seqs.map((seq, i) => ({ seq, discarded: i === 4 })));
    expect(await rep.metrics.registry.getSingleMetricAsString('events_parked_messages')).toMatch(/consumer="reporting-postings"[^}]*} 5/);
  }, 90_000);
});
