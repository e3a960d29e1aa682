import { AppError, limits, list, single } from '@acct/contracts';
import { type RpcServer, listQuery, pageInMemory, scopeOf } from '@acct/kit';
import { type Reads, chart } from '../flows/reports';

/** The chart of accounts with each account's totals (the whole chart is small: paged in memory). */
export function registerAccountHandlers(server: RpcServer, reads: Reads): void {
  server.handle('accounts.list', async (req) => {
    const q = listQuery(req.query);
    const all = await chart(reads, scopeOf(req.ctx), null);
    // By code; a cursor is an account id of the chart (another organization's or environment's differs: 400).
    const p = pageInMemory(all, q, limits.list_page_bytes_max);
    return { ok: true, status: 200, body: list('accounts', p.items, p.pagination) };
  });

  server.handle('accounts.get', async (req) => {
    const account = (await chart(reads, scopeOf(req.ctx), null)).find((a) => a.id === req.params.id.toLowerCase());
    if (!account) throw AppError.notFound('Account', req.params.id);
    return { ok: true, status: 200, body: single('account', account) };
  });
}
