import { LockMode } from '@mikro-orm/core';
import { AppError } from '@acct/contracts';
import { findInScope } from '@acct/kit';
import type { Db } from '@acct/posting';
import { CustomerSchema, type Estimate, EstimateSchema, type InboundEvent, InboundEventSchema, type Invoice, InvoiceSchema, type Payment, PaymentSchema } from './entities';

/**
 * The queries of the receivables flows, in one place, with every row lock the service takes:
 * payments lock their invoice; refunds lock the payment, then its invoice; estimate moves and
 * conversions lock the estimate.
 */

/** Locks an invoice of the scope for the rest of the transaction (payments queue on it). */
export function lockInvoice(db: Db, id: string): Promise<Invoice | null> {
  return findInScope(db.em, InvoiceSchema, id, db.scope, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** Locks a payment by its external id (concurrent refunds of one payment queue on it). */
export function lockPaymentByExternalId(db: Db, externalPaymentId: string): Promise<Payment | null> {
  return db.em.findOne(PaymentSchema, { ...db.scope, externalPaymentId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

export function lockEstimate(db: Db, id: string): Promise<Estimate | null> {
  return findInScope(db.em, EstimateSchema, id, db.scope, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

export function findPaymentByExternalId(db: Db, externalPaymentId: string): Promise<Payment | null> {
  return db.em.findOne(PaymentSchema, { ...db.scope, externalPaymentId });
}

export async function findInvoiceIdByExternalId(db: Db, externalInvoiceId: string): Promise<string | null> {
  const inv = await db.em.findOne(InvoiceSchema, { ...db.scope, externalInvoiceId }, { fields: ['id'] });
  return inv?.id ?? null;
}

/** The first event stored with this external id or Idempotency-Key, if any. */
export function findFirstEvent(db: Db, externalEventId: string, idempotencyKey: string | undefined): Promise<InboundEvent | null> {
  const or: Record<string, unknown>[] = [{ externalEventId }];
  if (idempotencyKey) or.push({ idempotencyKey });
  return db.em.findOne(InboundEventSchema, { ...db.scope, $or: or }, { orderBy: { createdAt: 'asc' } });
}

/** 404 naming /customer_id unless the customer exists in the scope. */
export async function requireCustomer(db: Db, customerId: string): Promise<void> {
  const c = await findInScope(db.em, CustomerSchema, customerId, db.scope);
  if (!c) {
    throw new AppError('not_found', `Customer ${customerId} was not found.`, [
      { field: '/customer_id', issue: 'not_found', message: 'No such customer in this organization and environment.' },
    ]);
  }
}
