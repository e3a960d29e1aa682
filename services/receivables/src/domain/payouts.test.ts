import { checkPayoutAmounts } from './payouts';
import { caught } from '@acct/testing';

describe('checkPayoutAmounts', () => {
  it('accepts gross − fee = net', () => {
    expect(() => checkPayoutAmounts(1000, 30, 970)).not.toThrow();
    expect(() => checkPayoutAmounts(1000, 0, 1000)).not.toThrow();
    expect(() => checkPayoutAmounts(1000, 1000, 0)).not.toThrow();
  });

  it.each([
    [1000, 30, 971],
    [1000, 30, 969],
    [1000, 30, 1000],
    [1000, 0, 970],
  ])('refuses %p − %p ≠ %p as net_mismatch', (gross, fee, net) => {
    const err = caught(() => checkPayoutAmounts(gross, fee, net));
    expect(err.code).toBe('validation_failed');
    expect(err.details).toHaveLength(1);
    expect(err.details[0]).toMatchObject({ field: '/net_cents', issue: 'net_mismatch' });
    expect(err.details[0]?.message).toContain(String(gross - fee));
  });
});
