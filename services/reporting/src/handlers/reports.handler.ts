import { single } from '@acct/contracts';
import { type RpcServer, scopeOf } from '@acct/kit';
import { todayUtc as today } from '@acct/ledger';
import { agingReport, checkPeriod, reportingYear } from '../domain/reports';
import { type Reads, agingAsOf, form1099Of, summary, trialBalanceAsOf } from '../flows/reports';

/** The reports (API-DECISIONS §8); as_of defaults to today (UTC). */
export function registerReportHandlers(server: RpcServer, reads: Reads): void {
  server.handle('reports.summary', async (req) => {
    checkPeriod(req.query.from, req.query.to);
    return { ok: true, status: 200, body: single('report_summary', await summary(reads, scopeOf(req.ctx), req.query.from, req.query.to)) };
  });

  server.handle('reports.accounts_receivable', async (req) => {
    const asOf = req.query.as_of ?? today();
    return { ok: true, status: 200, body: single('accounts_receivable', agingReport('customer', asOf, await agingAsOf(reads, scopeOf(req.ctx), 'invoice', asOf))) };
  });

  server.handle('reports.accounts_payable', async (req) => {
    const asOf = req.query.as_of ?? today();
    return { ok: true, status: 200, body: single('accounts_payable', agingReport('vendor', asOf, await agingAsOf(reads, scopeOf(req.ctx), 'bill', asOf))) };
  });

  server.handle('reports.form_1099', async (req) => {
    const year = reportingYear(req.query.year);
    return { ok: true, status: 200, body: single('tax_1099_summary', await form1099Of(reads, scopeOf(req.ctx), year, req.query.include_ineligible === true)) };
  });

  server.handle('reports.trial_balance', async (req) => {
    const asOf = req.query.as_of ?? today();
    return { ok: true, status: 200, body: single('trial_balance', await trialBalanceAsOf(reads, scopeOf(req.ctx), asOf)) };
  });
}
