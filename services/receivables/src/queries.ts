import { LockMode } from '@mikro-orm/core';
import { AppError } from '@acct/contracts';
import { type Scope, entityRows, findInScope, getInScope, insertInScopeOf, scopedIdKey, statement, withQuery } from '@acct/kit';
import { type Db, type GroupBatch, type LaterWrite, type Tx, scopeLocks } from '@acct/posting';
import type { EventSource } from '@acct/contracts';
import type { EntityManager } from '@acct/kit';
import {
  type Customer,
  CustomerSchema,
  type Estimate,
  EstimateSchema,
  type InboundEvent,
  InboundEventSchema,
  type Invoice,
  InvoiceSchema,
  type Payment,
  type PaymentProcessor,
  PaymentProcessorSchema,
  PaymentSchema,
  type Payout,
  PayoutSchema,
} from './entities';
import { postedInvoice } from './domain/invoices';

/**
 * The queries of the receivables flows, in one place, with every row lock the service takes:
 * payments lock their invoice; refunds lock the payment, then its invoice; estimate moves and
 * conversions lock the estimate; a PATCH locks its record (an invoice's PATCH and post queue on the
 * invoice, so a PATCH never changes the amounts of an invoice that was posted meanwhile).
 */

/** Locks a customer of the scope (PATCHes of one customer queue on it, so updated_at grows in commit order). */
export function lockCustomer(db: Db, id: string): Promise<Customer | null> {
  return findInScope(db.em, CustomerSchema, id, db.scope, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** Locks an invoice of the scope for the rest of the transaction (payments, posts and PATCHes queue on it). */
export function lockInvoice(db: Db, id: string): Promise<Invoice | null> {
  return findInScope(db.em, InvoiceSchema, id, db.scope, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** lockInvoice on pg directly (the post and void paths): a plain row, not managed. */
export function lockInvoiceRow(tx: Tx, id: string): Promise<Invoice | null> {
  return getInScope(tx.sql, entityRows(tx.em, InvoiceSchema), id, tx.scope, { lock: true });
}

/**
 * The drafts of a group of posts, locked, with the books' lock of their scopes read FOR SHARE in the
 * same statement (scopeLocks, libs/posting: no statement of its own): the first statement of
 * POST_DRAFTS_BATCH.
 */
const LOCK_DRAFTS = statement(
  'invoice_lock_drafts',
  `WITH ${scopeLocks.cte}
   SELECT i.*, ${scopeLocks.returning('i')}
     FROM invoices i JOIN unnest(?::uuid[], ?::uuid[], ?::text[]) AS k (id, organization_id, environment)
       ON i.id = k.id AND i.organization_id = k.organization_id AND i.environment = k.environment
    WHERE i.status = 'draft' FOR UPDATE OF i`,
);

/**
 * What posting set on locked drafts (domain/invoices postedInvoice): the one write that marks
 * invoices posted, made in the unit of work's last statement with the entries (LaterWrite).
 */
const MARK_POSTED: LaterWrite = {
  name: 'invoice_mark_posted',
  sql: `UPDATE invoices i SET status = k.status, posted_at = k.posted_at, journal_entry_id = k.journal_entry_id
     FROM unnest(?::uuid[], ?::text[], ?::timestamptz[], ?::uuid[]) AS k (id, status, posted_at, journal_entry_id)
    WHERE i.id = k.id`,
  where: true,
};

/** Queues the write of the posted state (domain/invoices postedInvoice) of a draft this transaction holds locked. */
export function markPosted(tx: Tx, posted: Invoice): void {
  tx.later(MARK_POSTED, [posted.id, posted.status, posted.postedAt, posted.journalEntryId]);
}

/** What a post of a draft needs before its group runs: the invoice and the journal entry id it will get. */
export interface DraftToPost {
  id: string;
  entryId: string;
}

/** A draft of a group, by scope and id (any spelling of the id: the group's keys and the rows' agree). */
const draftKey = (it: { scope: Scope; arg: DraftToPost }) => scopedIdKey(it.scope, it.arg.id);

/**
 * What POST_DRAFTS_BATCH answers a post. The posts of one invoice in a group share `shared`: the
 * draft as locked and posted by the domain's rule (null: no draft of the scope then), and the
 * record the group's first post of it answered. Only the first (`first`) posts; the others answer
 * its record as a replay (its mark is only written at the end of the unit of work).
 */
export interface DraftPost {
  first: boolean;
  shared: { posted: Invoice | null; record?: Invoice };
}

/**
 * The posts of a group's drafts (GroupBatch, libs/posting), a group of one included: the drafts
 * locked in one statement and posted by the domain's rule (postedInvoice); the work queues the
 * mark (markPosted). A work whose id is no draft of its scope gets `posted` null (it then locks
 * the invoice to tell what it is).
 */
export const POST_DRAFTS_BATCH: GroupBatch<DraftToPost, DraftPost> = {
  async run({ sql, em, lock }, items) {
    const keys = items.map(draftKey);
    const first = new Map<string, number>();
    keys.forEach((key, i) => {
      if (!first.has(key)) first.set(key, i);
    });
    const at = [...first.values()];
    const rows = await sql<Record<string, unknown>>(LOCK_DRAFTS, [
      ...scopeLocks.params(items.map((it) => it.scope)),
      at.map((i) => items[i]!.arg.id),
      at.map((i) => items[i]!.scope.organizationId),
      at.map((i) => items[i]!.scope.environment),
    ]);
    scopeLocks.prime(lock, rows);
    const read = entityRows(em, InvoiceSchema);
    const entryIds = new Map(at.map((i) => [keys[i]!, items[i]!.arg.entryId]));
    const postedAt = new Date();
    const posted = rows.map((r) => {
      const draft = read.read(r);
      return postedInvoice(draft, postedAt, entryIds.get(scopedIdKey(draft, draft.id))!);
    });
    const byKey = new Map(posted.map((p) => [scopedIdKey(p, p.id), p]));
    const shared = new Map([...first.keys()].map((key) => [key, { posted: byKey.get(key) ?? null }]));
    return keys.map((key, i) => ({ first: first.get(key) === i, shared: shared.get(key)! }));
  },
};

/** Writes what a void changed on an invoice row of lockInvoiceRow. */
export async function saveVoidedInvoice(tx: Tx, inv: Invoice): Promise<void> {
  await tx.em.execute(
    'UPDATE invoices SET status = ?, void_date = ?, voided_at = ?, void_entry_id = ? WHERE id = ?',
    [inv.status, inv.voidDate, inv.voidedAt, inv.voidEntryId, inv.id],
    'run',
  );
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

/** The first event of this source stored with this external id (or, from the API, Idempotency-Key), if any. */
export function findFirstEvent(db: Db, source: EventSource, externalEventId: string, idempotencyKey: string | undefined): Promise<InboundEvent | null> {
  const or: Record<string, unknown>[] = [{ source, externalEventId }];
  if (idempotencyKey) or.push({ idempotencyKey });
  return db.em.findOne(InboundEventSchema, { ...db.scope, $or: or }, { orderBy: { createdAt: 'asc' } });
}

/** A payment processor by the source id of its webhook URL: the one lookup without a tenancy (the signature checks it). */
export function findProcessorBySourceId(em: EntityManager, sourceId: string): Promise<PaymentProcessor | null> {
  return em.findOne(PaymentProcessorSchema, { id: sourceId });
}

/** The payment processor of a connected app in a scope. */
export function findProcessor(db: Db, connectedAppId: string): Promise<PaymentProcessor | null> {
  return db.em.findOne(PaymentProcessorSchema, { ...db.scope, connectedAppId });
}

/** The first correctly signed event verifies the processor (once: later ones change nothing). */
export async function markProcessorVerified(em: EntityManager, sourceId: string, at: Date): Promise<void> {
  await em.nativeUpdate(PaymentProcessorSchema, { id: sourceId, status: 'unverified' }, { status: 'verified', verifiedAt: at });
}

export function findCustomerByExternalId(db: Db, externalCustomerId: string): Promise<Customer | null> {
  return db.em.findOne(CustomerSchema, { ...db.scope, externalCustomerId });
}

export function findPayoutByExternalId(db: Db, externalPayoutId: string): Promise<Payout | null> {
  return db.em.findOne(PayoutSchema, { ...db.scope, externalPayoutId });
}

/**
 * Stores an inbound event. Plain SQL: the payload is the caller's free-form JSON, and MikroORM's
 * insert walks its values as query parameters (a key named "constructor" holding a number makes it throw).
 */
export async function insertInboundEvent(tx: Tx, row: InboundEvent): Promise<void> {
  await tx.em.execute(
    `INSERT INTO inbound_events (id, organization_id, environment, created_at, external_event_id, idempotency_key, event_type, payload, payload_hash, status, details, payment_id, source, source_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?::jsonb, ?, ?, ?)`,
    [
      row.id,
      row.organizationId,
      row.environment,
      row.createdAt,
      row.externalEventId,
      row.idempotencyKey,
      row.eventType,
      JSON.stringify(row.payload),
      row.payloadHash,
      row.status,
      JSON.stringify(row.details),
      row.paymentId,
      row.source,
      row.sourceId,
    ],
    'run',
  );
}

/** 404 naming /customer_id unless the customer exists in the scope. */
export async function requireCustomer(db: Db, customerId: string): Promise<void> {
  const c = await findInScope(db.em, CustomerSchema, customerId, db.scope);
  if (!c) throw customerNotFound(customerId);
}

/** 404 for a customer_id that is not a customer of the scope. */
export function customerNotFound(customerId: string): AppError {
  return new AppError('not_found', `Customer ${customerId} was not found.`, [
    { field: '/customer_id', issue: 'not_found', message: 'No such customer in this organization and environment.' },
  ]);
}

/**
 * Stores a new invoice of a customer of the scope, in one statement on a connection of the pool (the
 * customer's check rides in the INSERT: create-invoice's hot path, as for create-bill); false, with
 * nothing stored, when the customer is not one of the scope. An external id already taken fails the
 * statement with the unique violation the create answers from.
 */
export function insertInvoiceOfCustomer(db: Db, invoice: Invoice): Promise<boolean> {
  const rows = entityRows(db.em, InvoiceSchema);
  return withQuery(db.em, (q) => insertInScopeOf(q, rows, invoice, { table: 'customers', id: invoice.customerId }, 'invoice_insert_of_customer'));
}

/** One recorded change of the books' lock date (books_lock_changes). */
export interface BooksLockChangeRow {
  id: string;
  version: number;
  previous_lock_date: string | null;
  lock_date: string | null;
  api_key_id: string;
  connected_app_id: string;
  changed_at: Date | string;
}

export async function insertBooksLockChange(tx: Tx, row: Omit<BooksLockChangeRow, 'changed_at'> & { changed_at: Date }): Promise<void> {
  await tx.em.execute(
    `INSERT INTO books_lock_changes (id, organization_id, environment, version, previous_lock_date, lock_date, api_key_id, connected_app_id, changed_at)
     VALUES (?, ?, ?, ?, ?::date, ?::date, ?, ?, ?)`,
    [row.id, tx.scope.organizationId, tx.scope.environment, row.version, row.previous_lock_date, row.lock_date, row.api_key_id, row.connected_app_id, row.changed_at],
    'run',
  );
}

/** The newest `limit` changes of the lock date of the scope, newest first. */
export async function listBooksLockChanges(db: Db, limit: number): Promise<BooksLockChangeRow[]> {
  return db.em.execute<BooksLockChangeRow[]>(
    `SELECT id, version::int AS version, previous_lock_date::text AS previous_lock_date, lock_date::text AS lock_date, api_key_id, connected_app_id, changed_at
       FROM books_lock_changes WHERE organization_id = ? AND environment = ? ORDER BY version DESC LIMIT ?`,
    [db.scope.organizationId, db.scope.environment, limit],
  );
}
