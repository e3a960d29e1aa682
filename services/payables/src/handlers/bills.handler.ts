import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { accountingDate, requireOrder } from '@acct/ledger';
import { type Books, actionDone, createRecordOnce, newLineDocument } from '@acct/posting';
import { BILL, type Bill, BillSchema, unposted } from '../entities';
import { expenseAccountCode } from '../domain/accounts';
import { createBill, postBill, reverseBill, sameBillContent } from '../flows/bills';
import { findBillByExternalId } from '../queries';

export function registerBillHandlers(server: RpcServer, books: Books): void {
  server.handle('bills.create', async (req) => {
    const b = req.body;
    const scope = scopeOf(req.ctx);
    const doc = newLineDocument(scope, b, () => {
      const issueDate = accountingDate(b.issue_date, 'issue_date');
      const dueDate = accountingDate(b.due_date, 'due_date');
      requireOrder(issueDate, dueDate, 'issue_date', 'due_date');
      return { issueDate, dueDate };
    });
    const row: Bill = {
      ...doc,
      externalBillId: b.external_bill_id,
      vendorId: b.vendor_id,
      billNumber: b.bill_number,
      expenseAccountCode: expenseAccountCode(scope, b.expense_account_id),
      paidCents: 0,
      status: 'draft',
      ...unposted(),
    };
    const post = (b.status ?? 'posted') === 'posted';
    return createRecordOnce(BILL, {
      row,
      store: () => books.transactGrouped(req.ctx, (tx) => createBill(tx, row, post)),
      existing: () => findBillByExternalId(books.db(req.ctx), b.external_bill_id),
      same: (ex) => sameBillContent(ex, row),
    });
  });

  server.handle('bills.post', async (req) => actionDone(BILL, 'posted', await books.transactGrouped(req.ctx, (tx) => postBill(tx, req.params.id))));

  server.handle('bills.reverse', async (req) => actionDone(BILL, 'reversed', await books.transact(req.ctx, (tx) => reverseBill(tx, req.params.id, req.body.reversal_reason))));

  registerReads(server, books.orm, {
    ...BILL,
    list: 'bills.list',
    get: 'bills.get',
    schema: BillSchema,
    plural: 'bills',
    label: 'Bill',
    filters: { status: 'status', vendor_id: 'vendorId' },
    ranges: { issue_date_from: { prop: 'issueDate', op: '$gte' }, issue_date_to: { prop: 'issueDate', op: '$lte' } },
  });
}
