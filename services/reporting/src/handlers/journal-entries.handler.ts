import { limits, list } from '@acct/contracts';
import { type RpcServer, cursorPage, listQuery, scopeOf } from '@acct/kit';
import { checkPeriod } from '../domain/reports';
import { type Reads, journalPage } from '../flows/reports';

/** The journal as posted, newest first, filtered by source and entry date. */
export function registerJournalEntryHandlers(server: RpcServer, reads: Reads): void {
  server.handle('journal_entries.list', async (req) => {
    checkPeriod(req.query.from, req.query.to);
    const q = listQuery(req.query);
    const p = cursorPage(await journalPage(reads, scopeOf(req.ctx), req.query, q), q, limits.list_page_bytes_max);
    return { ok: true, status: 200, body: list('journal_entries', p.items, p.pagination) };
  });
}
