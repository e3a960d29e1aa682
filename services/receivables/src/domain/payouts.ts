import { AppError } from '@acct/contracts';

/** gross − fee = net, or the payout is refused (API-DECISIONS §5). */
export function checkPayoutAmounts(gross: number, fee: number, net: number): void {
  if (gross - fee !== net) {
    throw AppError.validation(`gross_cents − fee_cents must equal net_cents (${gross} − ${fee} ≠ ${net}).`, [
      { field: '/net_cents', issue: 'net_mismatch', message: `Expected net_cents ${gross - fee}.` },
    ]);
  }
}
