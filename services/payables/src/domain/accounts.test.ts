import { accountId } from '@acct/ledger';
import { caught } from '@acct/testing';
import { cashAccountCode, expenseAccountCode } from './accounts';

const scope = { organizationId: '7d9f6c1e-2b1a-4f3e-9c8d-0a1b2c3d4e5f', environment: 'test' as const };
const id = (code: string) => accountId(scope.organizationId, scope.environment, code);

describe('expenseAccountCode', () => {
  it('defaults to 5000 and accepts any expense account of the scope', () => {
    expect(expenseAccountCode(scope, undefined)).toBe('5000');
    expect(expenseAccountCode(scope, id('5200'))).toBe('5200');
  });
  it('refuses a non-expense account (400) and an unknown or foreign one (404)', () => {
    expect(caught(() => expenseAccountCode(scope, id('2000'))).details[0]).toMatchObject({ field: '/expense_account_id', issue: 'invalid_account_type' });
    expect(caught(() => expenseAccountCode(scope, id('2000'))).code).toBe('validation_failed');
    const foreign = accountId(scope.organizationId, 'live', '5000');
    expect(caught(() => expenseAccountCode(scope, foreign)).code).toBe('not_found');
  });
});

describe('cashAccountCode', () => {
  it.each(['1000', '1010', '1200'])('accepts %s (cash, bank, clearing)', (code) => {
    expect(cashAccountCode(scope, id(code))).toBe(code);
  });
  it.each(['1100', '2000', '4000', '5000'])('refuses %s', (code) => {
    expect(caught(() => cashAccountCode(scope, id(code))).details[0]).toMatchObject({ field: '/cash_account_id', issue: 'invalid_account_type' });
  });
  it('defaults to 1000', () => {
    expect(cashAccountCode(scope, undefined)).toBe('1000');
  });
});
