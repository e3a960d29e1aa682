import { AppError, list, page, single } from '@acct/contracts';
import { type RpcServer, pageQuery, scopeOf } from '@acct/kit';
import { type Reads, chart } from '../flows/reports';

/** The chart of accounts with each account's totals (the whole chart is small: paged in memory). */
export function registerAccountHandlers(server: RpcServer, reads: Reads): void {
  server.handle('accounts.list', async (req) => {
    const all = await chart(reads, scopeOf(req.ctx), null);
    const { limit, offset } = pageQuery(req.query);
    const p = page(all.slice(offset, offset + limit + 1), limit, offset);
    return { ok: true, status: 200, body: list('accounts', p.items, p.pagination) };
  });

  server.handle('accounts.get', async (req) => {
    const account = (await chart(reads, scopeOf(req.ctx), null)).find((a) => a.id === req.params.id.toLowerCase());
    if (!account) throw AppError.notFound('Account', req.params.id);
    return { ok: true, status: 200, body: single('account', account) };
  });
}
