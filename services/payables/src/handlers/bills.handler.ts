import { randomUUID } from 'node:crypto';
import { actionReply, single } from '@acct/contracts';
import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { accountingDate, currencyOf, priceLines, requireOrder } from '@acct/ledger';
import { type Books, createOnce, sameJson } from '@acct/posting';
import { type Bill, BillSchema, billDto } from '../entities';
import { expenseAccountCode } from '../domain/accounts';
import { billContent, createBill, postBill, reverseBill } from '../flows/bills';
import { findBillByExternalId } from '../queries';

export function registerBillHandlers(server: RpcServer, books: Books): void {
  const { orm } = books;

  server.handle('bills.create', async (req) => {
    const b = req.body;
    const scope = scopeOf(req.ctx);
    const { lines, totalCents } = priceLines(b.line_items);
    const issueDate = accountingDate(b.issue_date, 'issue_date');
    const dueDate = accountingDate(b.due_date, 'due_date');
    requireOrder(issueDate, dueDate, 'issue_date', 'due_date');
    const row: Bill = {
      id: randomUUID(),
      ...scope,
      externalBillId: b.external_bill_id,
      vendorId: b.vendor_id,
      billNumber: b.bill_number,
      issueDate,
      dueDate,
      currency: currencyOf(b.currency),
      memo: b.memo ?? null,
      lineItems: lines,
      expenseAccountCode: expenseAccountCode(scope, b.expense_account_id),
      totalCents,
      paidCents: 0,
      status: 'draft',
      journalEntryId: null,
      reversalEntryId: null,
      reversalReason: null,
      postedAt: null,
      reversedAt: null,
      createdAt: new Date(),
    };
    const post = (b.status ?? 'posted') === 'posted';
    return createOnce({
      constraint: 'bills_external_id',
      create: async () => {
        await books.transactGrouped(req.ctx, (tx) => createBill(tx, row, post));
        return { ok: true, status: 201, body: single('bill', billDto(row)) };
      },
      existing: () => findBillByExternalId(books.db(req.ctx), b.external_bill_id),
      same: (ex) => sameJson(billContent(ex), billContent(row)),
      reply: (ex) => single('bill', billDto(ex)),
      field: '/external_bill_id',
      what: 'bill',
    });
  });

  server.handle('bills.post', async (req) => {
    const { bill, replayed } = await books.transactGrouped(req.ctx, (tx) => postBill(tx, req.params.id));
    return { ok: true, status: 200, replayed, body: actionReply('bill', billDto(bill), 'posted') };
  });

  server.handle('bills.reverse', async (req) => {
    const { bill, replayed } = await books.transact(req.ctx, (tx) => reverseBill(tx, req.params.id, req.body.reversal_reason));
    return { ok: true, status: 200, replayed, body: actionReply('bill', billDto(bill), 'reversed') };
  });

  registerReads(server, orm, {
    list: 'bills.list',
    get: 'bills.get',
    schema: BillSchema,
    name: 'bill',
    plural: 'bills',
    label: 'Bill',
    dto: billDto,
    filters: { status: 'status', vendor_id: 'vendorId' },
    ranges: { issue_date_from: { prop: 'issueDate', op: '$gte' }, issue_date_to: { prop: 'issueDate', op: '$lte' } },
  });
}
