import { runMain } from '@acct/kit';
import { ledgerVerifyCommand } from '@acct/posting';
import { payablesService } from '../service';

/**
 * `npm run admin -- ledger verify` hands over to this one-shot script (dist/workers/admin.js) for the
 * payables journal: every chain of every organization and environment; exits 2 on a broken one.
 */
runMain(async () => {
  process.exitCode = await ledgerVerifyCommand(payablesService());
});
