import { AppError, type Environment } from '@acct/contracts';
import { ACCOUNT, type AccountDef, findAccountById } from '@acct/ledger';

interface Scope {
  organizationId: string;
  environment: Environment;
}

function accountOf(scope: Scope, id: string, field: string, fits: (a: AccountDef) => boolean, what: string): string {
  const account = findAccountById(scope.organizationId, scope.environment, id);
  if (!account) {
    throw new AppError('not_found', `Account ${id} was not found.`, [{ field, issue: 'not_found', message: 'No such account in this organization and environment.' }]);
  }
  if (!fits(account)) {
    throw AppError.validation(`Account ${account.code} (${account.name}) is not ${what}.`, [{ field, issue: 'invalid_account_type', message: `Use ${what}.` }]);
  }
  return account.code;
}

/** The code of the bill's expense account: the given one (an expense account of the scope), else 5000. */
export function expenseAccountCode(scope: Scope, id: string | undefined): string {
  return id === undefined ? ACCOUNT.expenses : accountOf(scope, id, '/expense_account_id', (a) => a.type === 'expense', 'an expense account');
}

/** The code of the account a vendor payment pays from: a cash, bank or clearing account of the scope, else 1000. */
export function cashAccountCode(scope: Scope, id: string | undefined): string {
  const paysOut = (a: AccountDef) => a.type === 'asset' && (a.subtype === 'cash' || a.subtype === 'bank' || a.subtype === 'clearing');
  return id === undefined ? ACCOUNT.cash : accountOf(scope, id, '/cash_account_id', paysOut, 'a cash, bank or clearing account');
}
