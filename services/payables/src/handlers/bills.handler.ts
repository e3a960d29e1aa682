import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { type Books, actionDone, createRecordOnce, updateInBooks } from '@acct/posting';
import { BILL, BillSchema } from '../entities';
import { createBill, newBill, postBill, reverseBill, sameBillContent, toStore, updateBill } from '../flows/bills';
import { INSERT_BILLS_BATCH, findBillByExternalId } from '../queries';

export function registerBillHandlers(server: RpcServer, books: Books): void {
  server.handle('bills.create', async (req) => {
    const b = req.body;
    const post = (b.status ?? 'posted') === 'posted';
    const row = toStore(newBill(scopeOf(req.ctx), b), post);
    return createRecordOnce(BILL, {
      row,
      // Its group inserts every new bill in one statement (INSERT_BILLS_BATCH); run alone, the bill inserts its own.
      store: () => books.transactGrouped(req.ctx, (tx, stored?: boolean) => createBill(tx, row, post, stored), { kind: INSERT_BILLS_BATCH, arg: row }),
      existing: () => findBillByExternalId(books.db(req.ctx), b.external_bill_id),
      same: (ex) => sameBillContent(ex, row),
    });
  });

  server.handle('bills.update', (req) => updateInBooks(books, req.ctx, BILL, (tx) => updateBill(tx, req.params.id, req.body)));

  server.handle('bills.post', async (req) => actionDone(BILL, 'posted', await books.transactGrouped(req.ctx, (tx) => postBill(tx, req.params.id))));

  server.handle('bills.reverse', async (req) => actionDone(BILL, 'reversed', await books.transact(req.ctx, (tx) => reverseBill(tx, req.params.id, req.body.reversal_reason))));

  registerReads(server, books.orm, 'bills', {
    ...BILL,
    schema: BillSchema,
    filters: { status: 'status', vendor_id: 'vendorId' },
    ranges: { issue_date_from: { prop: 'issueDate', op: '$gte' }, issue_date_to: { prop: 'issueDate', op: '$lte' } },
  });
}
