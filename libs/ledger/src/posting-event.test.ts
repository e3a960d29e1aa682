import { randomUUID } from 'node:crypto';
import { ACCOUNT, accountId } from './accounts';
import { journal_lines_max } from './entry';
import { postingEventProblem } from './posting-event';

/** A journal_entry.posted event as receivables publishes it for a processor payout (the smallest source). */
function payoutEvent(over: { org?: string; lines?: [string, 'debit' | 'credit', number][] } = {}) {
  const org = over.org ?? randomUUID();
  const lines = over.lines ?? [
    [ACCOUNT.bank, 'debit', 97],
    [ACCOUNT.processorFees, 'debit', 3],
    [ACCOUNT.processorClearing, 'credit', 100],
  ];
  const payoutId = randomUUID();
  return {
    id: randomUUID(),
    type: 'journal_entry.posted',
    organization_id: org,
    environment: 'test',
    occurred_at: '2026-11-01T10:00:00.000Z',
    entry: {
      id: randomUUID(),
      entry_date: '2026-11-01',
      source_type: 'processor_payout',
      source_id: payoutId,
      memo: 'stripe payout',
      reverses_entry_id: null,
      lines: lines.map(([code, side, amount]) => ({
        account_id: accountId(org, 'test', code),
        account_code: code,
        side,
        amount_cents: amount,
        customer_id: null,
        invoice_id: null,
        vendor_id: null,
        bill_id: null,
      })),
    },
    source: {
      type: 'processor_payout',
      processor_payout: {
        id: payoutId,
        external_payout_id: 'po_1',
        processor: 'stripe',
        payout_date: '2026-11-01',
        gross_cents: 100,
        fee_cents: 3,
        net_cents: 97,
        currency: 'USD',
        status: 'created',
        metadata: {},
        created_at: '2026-11-01T10:00:00.000Z',
      },
    },
  };
}

const AR = 'acct.events.posting.receivables';
const AP = 'acct.events.posting.payables';
type Ev = ReturnType<typeof payoutEvent>;
const problem = (e: unknown, subject = AR) => postingEventProblem('acct', subject, e);
const edit = (f: (e: Ev) => void, base = payoutEvent()): Ev => {
  const e = structuredClone(base);
  f(e);
  return e;
};

describe('postingEventProblem: the posting rules, applied to an event from the bus', () => {
  it('passes an event as the posting service publishes it', () => {
    expect(problem(payoutEvent())).toBeUndefined();
    // Upper-case ids name the same accounts.
    expect(problem(edit((e) => e.entry.lines.forEach((l) => (l.account_id = l.account_id.toUpperCase()))))).toBeUndefined();
  });

  it('refuses an unbalanced entry (the issue: debits 7,147, credits 6,370)', () => {
    const e = payoutEvent({
      lines: [
        [ACCOUNT.bank, 'debit', 7147],
        [ACCOUNT.processorClearing, 'credit', 6370],
      ],
    });
    expect(problem(e)).toBe('unbalanced: debits 7147 ≠ credits 6370');
  });

  it('refuses missing, zero, negative, fractional and unsafe amounts, and too many lines', () => {
    expect(problem(edit((e) => delete (e.entry.lines[0] as Partial<Ev['entry']['lines'][0]>).amount_cents))).toMatch(/^not a valid journal_entry.posted event: .*amount_cents/);
    expect(problem(edit((e) => (e.entry.lines[0]!.amount_cents = 0)))).toMatch(/amount_cents/);
    expect(problem(edit((e) => (e.entry.lines[0]!.amount_cents = -97)))).toMatch(/amount_cents/);
    expect(problem(edit((e) => (e.entry.lines[0]!.amount_cents = 9.5)))).toMatch(/amount_cents/);
    const huge = 2 ** 53;
    expect(
      problem(
        payoutEvent({
          lines: [
            [ACCOUNT.bank, 'debit', huge],
            [ACCOUNT.processorClearing, 'credit', huge],
          ],
        }),
      ),
    ).toMatch(/^bad_amount: /);
    expect(problem(edit((e) => (e.entry.lines = [])))).toMatch(/lines/);
    const many: [string, 'debit' | 'credit', number][] = Array.from({ length: journal_lines_max + 1 }, (_, i) => [ACCOUNT.bank, i % 2 ? 'credit' : 'debit', 1]);
    many.push([ACCOUNT.bank, 'credit', 1]);
    expect(problem(payoutEvent({ lines: many }))).toMatch(/^too_many_lines: /);
  });

  it('refuses an account code not in the chart, and an account id that is not the organization’s account of its code', () => {
    const unknown = payoutEvent({
      lines: [
        ['9999', 'debit', 100],
        [ACCOUNT.processorClearing, 'credit', 100],
      ],
    });
    expect(problem(unknown)).toBe('unknown_account: line 1: unknown account 9999');
    const otherOrg = randomUUID();
    expect(problem(edit((e) => (e.entry.lines[1]!.account_id = accountId(otherOrg, 'test', ACCOUNT.processorFees))))).toMatch(
      /^line 2: account_id .* is not the account 5200 of organization/,
    );
    expect(problem(edit((e) => (e.entry.lines[0]!.account_id = accountId(e.organization_id, 'live', ACCOUNT.bank))))).toMatch(/^line 1: account_id/);
    expect(problem(edit((e) => (e.entry.lines[0]!.account_id = accountId(e.organization_id, 'test', ACCOUNT.cash))))).toMatch(/^line 1: account_id/);
  });

  it('refuses a source type that is not the subject’s service’s, or an entry source type that does not go with it', () => {
    expect(problem(payoutEvent(), AP)).toBe('source type processor_payout is posted by receivables, not by payables');
    expect(problem(edit((e) => (e.entry.source_type = 'invoice')))).toBe('an entry of source type processor_payout has source_type processor_payout, not "invoice"');
    expect(problem(payoutEvent(), 'acct.events.outbound.invoice.posted')).toMatch(/not the subject of a posting service/);
    expect(problem(payoutEvent(), 'other.events.posting.receivables')).toMatch(/not the subject of a posting service/);
  });

  it('refuses malformed organization, environment and ids, and an entry date outside the allowed window', () => {
    expect(problem(edit((e) => (e.organization_id = 'acme')))).toMatch(/organization_id/);
    expect(problem(edit((e) => (e.environment = 'prod')))).toMatch(/environment/);
    expect(problem(edit((e) => (e.id = 'x' as Ev['id'])))).toMatch(/\/id/);
    expect(problem(edit((e) => (e.entry.id = '' as Ev['id'])))).toMatch(/entry\/id/);
    expect(problem(edit((e) => (e.entry.lines[0]!.customer_id = 'nobody' as unknown as null)))).toMatch(/customer_id/);
    expect(problem(edit((e) => (e.entry.entry_date = '1899-12-31')))).toMatch(/entry_date/);
    expect(problem(edit((e) => (e.entry.entry_date = '10000-01-01')))).toMatch(/entry_date/);
    expect(problem(edit((e) => (e.entry.entry_date = '2026-02-30')))).toMatch(/entry_date/);
    expect(problem(null)).toMatch(/^not a valid journal_entry.posted event/);
  });
});
