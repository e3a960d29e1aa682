import { AppError, list, page, single } from '@acct/contracts';
import { type Orm, type RpcServer, pageQuery, scopeOf } from '@acct/kit';
import { agingOf, chartWithTotals, form1099, parseYear, trialBalance } from '../domain/reports';
import type { Freshness } from '../freshness';
import { accountTotals, journalEntries, netCredit, openAmounts, vendorPaymentsInYear } from '../queries';
import { ACCOUNT, todayUtc as today } from '@acct/ledger';

const bad = (field: string, message: string) => AppError.validation(message, [{ field, issue: 'invalid', message }]);

/** The ledger reads and reports; each waits for the projection to hold every write acknowledged so far. */
export function registerReportHandlers(server: RpcServer, orm: Orm, fresh: Freshness): void {
  server.handle('accounts.list', async (req) => {
    await fresh.awaitCaughtUp();
    const s = scopeOf(req.ctx);
    const all = chartWithTotals(s.organizationId, s.environment, await accountTotals(orm, s, null));
    const { limit, offset } = pageQuery(req.query);
    const p = page(all.slice(offset, offset + limit + 1), limit, offset);
    return { ok: true, status: 200, body: list('accounts', p.items, p.pagination) };
  });

  server.handle('accounts.get', async (req) => {
    await fresh.awaitCaughtUp();
    const s = scopeOf(req.ctx);
    const account = chartWithTotals(s.organizationId, s.environment, await accountTotals(orm, s, null)).find((a) => a.id === req.params.id.toLowerCase());
    if (!account) throw AppError.notFound('Account', req.params.id);
    return { ok: true, status: 200, body: single('account', account) };
  });

  server.handle('journal_entries.list', async (req) => {
    const { from, to } = req.query;
    if (from && to && from > to) throw bad('from', 'from must not be after to.');
    await fresh.awaitCaughtUp();
    const { limit, offset } = pageQuery(req.query);
    const p = page(await journalEntries(orm, scopeOf(req.ctx), req.query, limit, offset), limit, offset);
    const items = p.items.map((r) => ({
      id: String(r.id),
      entry_date: String(r.entry_date),
      source_type: String(r.source_type),
      source_id: String(r.source_id),
      memo: (r.memo as string | null) ?? null,
      reverses_entry_id: (r.reverses_entry_id as string | null) ?? null,
      posted_at: new Date(r.posted_at as string).toISOString(),
      lines: ((r.lines ?? []) as { amount_cents: number | string }[]).map((l) => ({ ...l, amount_cents: Number(l.amount_cents) })) as never,
    }));
    return { ok: true, status: 200, body: list('journal_entries', items, p.pagination) };
  });

  server.handle('reports.summary', async (req) => {
    const { from, to } = req.query;
    if (from > to) throw bad('from', 'from must not be after to.');
    await fresh.awaitCaughtUp();
    const s = scopeOf(req.ctx);
    const [revenue, payable, receivableCredit] = await Promise.all([
      netCredit(orm, s, ACCOUNT.revenue, from, to),
      netCredit(orm, s, ACCOUNT.payable, null, to),
      netCredit(orm, s, ACCOUNT.receivable, null, to),
    ]);
    const report = { from, to, revenue_cents: revenue, accounts_receivable_cents: -receivableCredit, accounts_payable_cents: payable };
    return { ok: true, status: 200, body: single('report_summary', report) };
  });

  server.handle('reports.accounts_receivable', async (req) => {
    const asOf = req.query.as_of ?? today();
    await fresh.awaitCaughtUp();
    const r = agingOf(await openAmounts(orm, scopeOf(req.ctx), 'invoice', asOf));
    const report = {
      as_of: asOf,
      total_open_cents: r.totalOpenCents,
      customer_count: r.partyCount,
      aging: r.aging,
      customers: r.rows.map((x) => ({ customer_id: x.party_id, display_name: x.display_name, open_cents: x.open_cents, aging: x.aging })),
    };
    return { ok: true, status: 200, body: single('accounts_receivable', report) };
  });

  server.handle('reports.accounts_payable', async (req) => {
    const asOf = req.query.as_of ?? today();
    await fresh.awaitCaughtUp();
    const r = agingOf(await openAmounts(orm, scopeOf(req.ctx), 'bill', asOf));
    const report = {
      as_of: asOf,
      total_open_cents: r.totalOpenCents,
      vendor_count: r.partyCount,
      aging: r.aging,
      vendors: r.rows.map((x) => ({ vendor_id: x.party_id, display_name: x.display_name, open_cents: x.open_cents, aging: x.aging })),
    };
    return { ok: true, status: 200, body: single('accounts_payable', report) };
  });

  server.handle('reports.form_1099', async (req) => {
    const year = parseYear(req.query.year);
    if (year === null) throw bad('year', 'year must be a 4-digit year from 1900 to 9999.');
    await fresh.awaitCaughtUp();
    const report = form1099(year, await vendorPaymentsInYear(orm, scopeOf(req.ctx), year), req.query.include_ineligible === true);
    return { ok: true, status: 200, body: single('tax_1099_summary', report) };
  });

  server.handle('reports.trial_balance', async (req) => {
    const asOf = req.query.as_of ?? today();
    await fresh.awaitCaughtUp();
    const s = scopeOf(req.ctx);
    const tb = trialBalance(chartWithTotals(s.organizationId, s.environment, await accountTotals(orm, s, asOf)));
    return { ok: true, status: 200, body: single('trial_balance', { as_of: asOf, ...tb }) };
  });
}
