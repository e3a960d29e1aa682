import { ACCOUNT } from './accounts';
import { buildEntry, journal_lines_max, reversalOf, totals, type JournalEntryDraft, type JournalLine } from './entry';
import { LedgerError } from './money';

const INVOICE = '11111111-1111-4111-8111-111111111111';
const CUSTOMER = '22222222-2222-4222-8222-222222222222';
const PAYOUT = '33333333-3333-4333-8333-333333333333';
const ENTRY = '44444444-4444-4444-8444-444444444444';
const REVERSAL = '55555555-5555-4555-8555-555555555555';

function invoiceEntry(amountCents = 12_500): JournalEntryDraft & { lines: [JournalLine, JournalLine] } {
  return {
    entryDate: '2026-01-15',
    sourceType: 'invoice',
    sourceId: INVOICE,
    lines: [
      { accountCode: ACCOUNT.receivable, side: 'debit', amountCents, customerId: CUSTOMER, invoiceId: INVOICE },
      { accountCode: ACCOUNT.revenue, side: 'credit', amountCents, customerId: CUSTOMER, invoiceId: INVOICE },
    ],
  };
}

/** A processor payout of 10_000 gross: bank gets the net, processor fees the fee, against clearing. */
function payoutEntry(feeCents: number): JournalEntryDraft {
  return {
    entryDate: '2026-02-01',
    sourceType: 'processor_payout',
    sourceId: PAYOUT,
    lines: [
      { accountCode: ACCOUNT.bank, side: 'debit', amountCents: 10_000 - feeCents },
      { accountCode: ACCOUNT.processorFees, side: 'debit', amountCents: feeCents },
      { accountCode: ACCOUNT.processorClearing, side: 'credit', amountCents: 10_000 },
    ],
  };
}

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof LedgerError) return e.code;
    throw e;
  }
  return undefined;
}

/** Signed net per account and dimensions (debit positive). */
function net(lines: readonly JournalLine[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const l of lines) {
    const key = [l.accountCode, l.customerId, l.invoiceId, l.vendorId, l.billId].join('|');
    m.set(key, (m.get(key) ?? 0) + (l.side === 'debit' ? l.amountCents : -l.amountCents));
  }
  return m;
}

describe('totals', () => {
  it('sums each side', () => {
    expect(totals(invoiceEntry().lines)).toEqual({ debitCents: 12_500, creditCents: 12_500 });
    expect(totals([])).toEqual({ debitCents: 0, creditCents: 0 });
  });
});

describe('buildEntry', () => {
  it('returns a balanced entry unchanged and does not mutate its input', () => {
    const draft = invoiceEntry();
    const copy = JSON.parse(JSON.stringify(draft));
    expect(buildEntry(draft)).toEqual(draft);
    expect(draft).toEqual(copy);
  });

  it('balances with several lines per side (payout: bank net + fee against clearing gross)', () => {
    const e = buildEntry(payoutEntry(300));
    expect(e.lines).toHaveLength(3);
    expect(totals(e.lines)).toEqual({ debitCents: 10_000, creditCents: 10_000 });
  });

  it('drops zero-amount lines (a payout without a fee)', () => {
    const e = buildEntry(payoutEntry(0));
    expect(e.lines.map((l) => l.accountCode)).toEqual([ACCOUNT.bank, ACCOUNT.processorClearing]);
  });

  it('refuses an entry with no lines, or only zero lines, as empty', () => {
    expect(code(() => buildEntry({ ...invoiceEntry(), lines: [] }))).toBe('empty');
    expect(code(() => buildEntry(invoiceEntry(0)))).toBe('empty');
  });

  it('refuses debits ≠ credits', () => {
    const draft = invoiceEntry();
    draft.lines[1].amountCents = 12_499;
    expect(code(() => buildEntry(draft))).toBe('unbalanced');
    expect(code(() => buildEntry({ ...draft, lines: [draft.lines[0]] }))).toBe('unbalanced');
  });

  it.each([-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1, Number.POSITIVE_INFINITY])('refuses amount %p', (amountCents) => {
    expect(code(() => buildEntry(invoiceEntry(amountCents)))).toBe('bad_amount');
  });

  it('refuses sides that overflow the safe range rather than comparing rounded sums', () => {
    const big = Number.MAX_SAFE_INTEGER;
    const draft = invoiceEntry(big);
    draft.lines.push({ ...draft.lines[0] }, { ...draft.lines[1] });
    expect(code(() => buildEntry(draft))).toBe('bad_amount');
  });

  it('refuses an account outside the chart unless the caller allows it', () => {
    const draft = invoiceEntry();
    draft.lines[1].accountCode = '4100';
    expect(code(() => buildEntry(draft))).toBe('unknown_account');
    expect(buildEntry(draft, { accountCodes: [ACCOUNT.receivable, '4100'] }).lines[1]?.accountCode).toBe('4100');
    expect(code(() => buildEntry(invoiceEntry(), { accountCodes: ['4100'] }))).toBe('unknown_account');
  });

  it('refuses a bad side, date, source or dimension', () => {
    const badSide = invoiceEntry();
    (badSide.lines[0] as { side: string }).side = 'left';
    expect(code(() => buildEntry(badSide))).toBe('bad_line');
    expect(code(() => buildEntry({ ...invoiceEntry(), entryDate: '2026-02-30' }))).toBe('bad_entry');
    expect(code(() => buildEntry({ ...invoiceEntry(), entryDate: '2026-1-5' }))).toBe('bad_entry');
    expect(code(() => buildEntry({ ...invoiceEntry(), sourceType: '' }))).toBe('bad_entry');
    expect(code(() => buildEntry({ ...invoiceEntry(), sourceId: 'inv_1' }))).toBe('bad_entry');
    expect(code(() => buildEntry({ ...invoiceEntry(), reversesEntryId: 'x' }))).toBe('bad_entry');
    const badDim = invoiceEntry();
    badDim.lines[0].customerId = 'cus_1';
    expect(code(() => buildEntry(badDim))).toBe('bad_line');
  });

  it(`refuses more than ${journal_lines_max} lines`, () => {
    const line = (side: 'debit' | 'credit'): JournalLine => ({ accountCode: ACCOUNT.cash, side, amountCents: 1 });
    const lines = Array.from({ length: journal_lines_max + 2 }, (_, i) => line(i % 2 ? 'credit' : 'debit'));
    expect(code(() => buildEntry({ ...invoiceEntry(), lines }))).toBe('too_many_lines');
    expect(buildEntry({ ...invoiceEntry(), lines: lines.slice(0, journal_lines_max) }).lines).toHaveLength(journal_lines_max);
  });
});

describe('reversalOf', () => {
  const original = { id: ENTRY, ...buildEntry({ ...invoiceEntry(), memo: 'Invoice INV-1' }) };

  it('mirrors every line, keeps the source and dimensions, and points at the original', () => {
    const r = reversalOf(original, '2026-03-01');
    expect(r).toMatchObject({ entryDate: '2026-03-01', sourceType: 'invoice', sourceId: INVOICE, reversesEntryId: ENTRY });
    expect(r.lines).toEqual([
      { accountCode: ACCOUNT.receivable, side: 'credit', amountCents: 12_500, customerId: CUSTOMER, invoiceId: INVOICE },
      { accountCode: ACCOUNT.revenue, side: 'debit', amountCents: 12_500, customerId: CUSTOMER, invoiceId: INVOICE },
    ]);
    expect(r.memo).toBe(`Reversal of journal entry ${ENTRY}`);
    expect(reversalOf(original, '2026-03-01', { memo: 'Voided' }).memo).toBe('Voided');
  });

  it('nets to zero with the original on every account and dimension', () => {
    const payout = { id: ENTRY, ...payoutEntry(300) };
    for (const e of [original, payout]) {
      const both = net([...e.lines, ...reversalOf(e, '2026-03-01').lines]);
      expect([...both.values()].every((v) => v === 0)).toBe(true);
    }
  });

  it('a reversal of a reversal balances and restores the original lines', () => {
    const reversal = { id: REVERSAL, ...reversalOf(original, '2026-03-01') };
    const again = reversalOf(reversal, '2026-03-02');
    expect(totals(again.lines)).toEqual({ debitCents: 12_500, creditCents: 12_500 });
    expect(again.lines).toEqual(original.lines);
    expect(again.reversesEntryId).toBe(REVERSAL);
  });

  it('checks accounts against the allowed set when given', () => {
    const custom = {
      id: ENTRY,
      sourceType: 'bill',
      sourceId: INVOICE,
      lines: [
        { accountCode: '5100', side: 'debit', amountCents: 5 },
        { accountCode: ACCOUNT.payable, side: 'credit', amountCents: 5 },
      ] as JournalLine[],
    };
    expect(code(() => reversalOf(custom, '2026-03-01'))).toBe('unknown_account');
    expect(reversalOf(custom, '2026-03-01', { accountCodes: ['5100', ACCOUNT.payable] }).lines[0]?.side).toBe('credit');
  });
});
