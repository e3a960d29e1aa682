import type { Tx } from '@acct/posting';
import { type Payout, PayoutSchema, payoutDto } from '../entities';
import { payoutPosting } from '../domain/postings';

/** The caller's content of a create, as compared on a retry. */
export const payoutContent = (p: Pick<Payout, 'processor' | 'payoutDate' | 'grossCents' | 'feeCents' | 'netCents' | 'currency'>) => ({
  processor: p.processor,
  payout_date: p.payoutDate,
  gross_cents: p.grossCents,
  fee_cents: p.feeCents,
  net_cents: p.netCents,
  currency: p.currency,
});

/** Books a processor payout: clearing → bank (net) and fees (fee); a zero payout moves nothing. */
export async function recordPayout(tx: Tx, row: Payout): Promise<Payout> {
  if (row.grossCents > 0) row.journalEntryId = await tx.post(payoutPosting(row), { type: 'processor_payout', processor_payout: payoutDto(row) });
  await tx.em.insert(PayoutSchema, row);
  return row;
}
