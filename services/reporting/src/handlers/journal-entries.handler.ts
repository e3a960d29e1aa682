import { list, page } from '@acct/contracts';
import { type RpcServer, pageQuery, scopeOf } from '@acct/kit';
import { checkPeriod } from '../domain/reports';
import { type Reads, journalPage } from '../flows/reports';

/** The journal as posted, newest first, filtered by source and entry date. */
export function registerJournalEntryHandlers(server: RpcServer, reads: Reads): void {
  server.handle('journal_entries.list', async (req) => {
    checkPeriod(req.query.from, req.query.to);
    const { limit, offset } = pageQuery(req.query);
    const p = page(await journalPage(reads, scopeOf(req.ctx), req.query, limit, offset), limit, offset);
    return { ok: true, status: 200, body: list('journal_entries', p.items, p.pagination) };
  });
}
