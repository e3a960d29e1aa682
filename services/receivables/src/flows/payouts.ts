import { type Tx, sameJson } from '@acct/posting';
import { insertEntity } from '@acct/kit';
import { type Payout, PayoutSchema, payoutDto } from '../entities';
import { payoutPosting } from '../domain/postings';

/** The caller's content of a create, as compared on a retry (the fields of its dto that the caller sent). */
export const samePayoutContent = (a: Payout, b: Payout): boolean => {
  const content = ({ id: _id, created_at: _at, status: _s, external_payout_id: _ext, ...sent }: ReturnType<typeof payoutDto>) => sent;
  return sameJson(content(payoutDto(a)), content(payoutDto(b)));
};

/** Books a processor payout: clearing → bank (net) and fees (fee); a zero payout moves nothing. */
export async function recordPayout(tx: Tx, row: Payout): Promise<Payout> {
  await tx.assertOpen(row.payoutDate, '/payout_date'); // a zero payout too: its date is in the books
  if (row.grossCents > 0) row.journalEntryId = await tx.post(payoutPosting(row), { type: 'processor_payout', processor_payout: payoutDto(row) });
  await insertEntity(tx.em, PayoutSchema, row);
  return row;
}
