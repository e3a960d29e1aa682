import { limits, single } from '@acct/contracts';
import { type RpcServer, scopeOf } from '@acct/kit';
import { todayUtc as today } from '@acct/ledger';
import { checkPeriod } from '../domain/reports';
import type { Reads } from '../flows/reports';
import { balanceSheetOf, fiscalYear, generalLedgerOf, profitAndLossOf, setFiscalYear } from '../flows/statements';

/** The financial statements and the fiscal year setting (API-DECISIONS §14). */
export function registerStatementHandlers(server: RpcServer, reads: Reads): void {
  server.handle('settings.fiscal_year.get', async (req) => ({ ok: true, status: 200, body: single('fiscal_year', await fiscalYear(reads, scopeOf(req.ctx))) }));

  server.handle('settings.fiscal_year.put', async (req) => ({
    ok: true,
    status: 200,
    body: single('fiscal_year', await setFiscalYear(reads, scopeOf(req.ctx), req.body.fiscal_year_start_month)),
  }));

  server.handle('reports.profit_and_loss', async (req) => {
    const { from, to } = req.query;
    checkPeriod(from, to);
    return {
      ok: true,
      status: 200,
      body: single('profit_and_loss', await profitAndLossOf(reads, scopeOf(req.ctx), { from, to, basis: req.query.basis ?? 'accrual' }, req.query.columns ?? 'total')),
    };
  });

  server.handle('reports.balance_sheet', async (req) => {
    const asOf = req.query.as_of ?? today();
    return { ok: true, status: 200, body: single('balance_sheet', await balanceSheetOf(reads, scopeOf(req.ctx), asOf, req.query.columns ?? 'total')) };
  });

  server.handle('reports.general_ledger', async (req) => {
    const { account_id, from, to, cursor } = req.query;
    checkPeriod(from, to);
    const page = { accountId: account_id, from, to, limit: req.query.limit ?? limits.page_limit_default, ...(cursor === undefined ? {} : { cursor }) };
    return { ok: true, status: 200, body: single('general_ledger', await generalLedgerOf(reads, scopeOf(req.ctx), page)) };
  });
}
