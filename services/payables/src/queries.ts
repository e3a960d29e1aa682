import { LockMode } from '@mikro-orm/core';
import { AppError } from '@acct/contracts';
import { type Statement, entityRows, findAllInScope, findInScope, getInScope, statement } from '@acct/kit';
import { type Db, type GroupBatch, type Tx, scopeLocks } from '@acct/posting';
import { type Bill, BillSchema, type Vendor, type VendorPayment, VendorPaymentSchema, VendorSchema } from './entities';

/**
 * The queries of the payables flows, in one place, with every row lock the service takes.
 * Lock order, always: a vendor payment, then its bills in id order. Payments lock the bills they
 * allocate to (so concurrent payments on one bill queue and each sees the balance the previous one
 * left); bill post and reverse lock the bill (so a reversal and a payment on one bill never both
 * see the bill as they found it); PATCH locks the vendor.
 */

export function lockVendor(db: Db, id: string): Promise<Vendor | null> {
  return findInScope(db.em, VendorSchema, id, db.scope, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** 404 naming /vendor_id unless the vendor exists in the scope (on pg directly: bills are created on a hot path). */
export async function requireVendor(tx: Tx, vendorId: string): Promise<void> {
  const v = await getInScope(tx.sql, entityRows(tx.em, VendorSchema), vendorId, tx.scope);
  if (!v) throw vendorNotFound(vendorId);
}

export function vendorNotFound(vendorId: string): AppError {
  return new AppError('not_found', `Vendor ${vendorId} was not found.`, [
    { field: '/vendor_id', issue: 'not_found', message: 'No such vendor in this organization and environment.' },
  ]);
}

export function lockBill(db: Db, id: string): Promise<Bill | null> {
  return findInScope(db.em, BillSchema, id, db.scope, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** The bills of the scope among `ids`, by id; locked in id order when `lock` (no deadlock between payments). */
export async function billsById(db: Db, ids: readonly string[], lock: boolean): Promise<Map<string, Bill>> {
  const unique = [...new Set(ids)].sort();
  const rows = await findAllInScope(db.em, BillSchema, unique, db.scope, { orderBy: { id: 'asc' }, ...(lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}) });
  return new Map(rows.map((b) => [b.id, b]));
}

export function lockVendorPayment(db: Db, id: string): Promise<VendorPayment | null> {
  return findInScope(db.em, VendorPaymentSchema, id, db.scope, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

export function findVendorByExternalId(db: Db, externalVendorId: string): Promise<Vendor | null> {
  return db.em.findOne(VendorSchema, { ...db.scope, externalVendorId });
}

export function findBillByExternalId(db: Db, externalBillId: string): Promise<Bill | null> {
  return db.em.findOne(BillSchema, { ...db.scope, externalBillId });
}

export function findVendorPaymentByExternalId(db: Db, externalVendorPaymentId: string): Promise<VendorPayment | null> {
  return db.em.findOne(VendorPaymentSchema, { ...db.scope, externalVendorPaymentId });
}

/** The named statement of INSERT_BILLS_BATCH: every bill of a group whose vendor is one of its scope, in one INSERT. */
let insertManyOfVendorStatement: Statement | undefined;

/**
 * The new bills of a group in ONE statement (GroupBatch, libs/posting), a group of one included:
 * the one statement that stores a new bill. A work gets true when its bill is stored, false when
 * its vendor is not one of its scope (nothing stored for it). An external id already taken fails
 * the statement, so the group, which is then split until that bill's create is alone (libs/posting
 * grouping.ts): its unique violation is its create's to answer.
 */
export const INSERT_BILLS_BATCH: GroupBatch<Bill, boolean> = {
  async run({ sql, em, lock }, items) {
    const rows = entityRows(em, BillSchema);
    // It also reads the books' lock of the group's scopes (scopeLocks, libs/posting): no statement of its own.
    insertManyOfVendorStatement ??= statement(
      'bill_insert_of_vendors',
      `WITH ${scopeLocks.cte}
       INSERT INTO bills (${rows.columns}) SELECT k.* FROM ${rows.unnest('k')}
       WHERE EXISTS (SELECT 1 FROM vendors v WHERE v.id = k.vendor_id AND v.organization_id = k.organization_id AND v.environment = k.environment)
       RETURNING id, organization_id, environment, ${scopeLocks.returning('bills')}`,
    );
    const stored = await sql<{ id: string }>(insertManyOfVendorStatement, [...scopeLocks.params(items.map((it) => it.scope)), ...rows.arrays(items.map((it) => it.arg))]);
    scopeLocks.prime(lock, stored);
    const ids = new Set(stored.map((r) => r.id));
    return items.map((it) => ids.has(it.arg.id));
  },
};
