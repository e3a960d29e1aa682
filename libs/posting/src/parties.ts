import { AppError, type EmittedEventType, type EventMap } from '@acct/contracts';
import type { EntitySchema } from '@mikro-orm/core';
import { insertEntity } from '@acct/kit';
import type { Tx } from './unit-of-work';
import { nextUpdatedAt } from './updates';

/**
 * The writes of a record other services keep copies of (a customer, a vendor): each change is stored
 * and told in one transaction, `created` on insert, `updated` on a PATCH that changed something.
 */
export interface PartyWrites<E extends { updatedAt: Date }, C extends EmittedEventType, U extends EmittedEventType> {
  schema: EntitySchema<E, never>;
  /** The name of a missing one in the 404 (Customer, Vendor). */
  label: string;
  created: C;
  updated: U;
  dto: (row: E) => EventMap[C] & EventMap[U];
  /** The row by id under its row lock, null when it does not exist in the scope. */
  lock: (tx: Tx, id: string) => Promise<E | null>;
}

/** Stores a new record and tells the services that keep copies (`created`). */
export async function createParty<E extends { updatedAt: Date }, C extends EmittedEventType, U extends EmittedEventType>(w: PartyWrites<E, C, U>, tx: Tx, row: E): Promise<E> {
  await insertEntity(tx.em, w.schema, row);
  tx.emit(w.created, w.dto(row));
  return row;
}

/**
 * PATCH under the record's row lock (404 when missing): `changes` are what the body changes (empty
 * when the record already says it); when something changed, updated_at grows and `updated` tells the copies.
 */
export async function updateParty<E extends { updatedAt: Date }, C extends EmittedEventType, U extends EmittedEventType>(
  w: PartyWrites<E, C, U>,
  tx: Tx,
  id: string,
  changes: (current: E) => Partial<E>,
): Promise<E> {
  const row = await w.lock(tx, id);
  if (!row) throw AppError.notFound(w.label, id);
  const changed = changes(row);
  if (Object.keys(changed).length === 0) return row;
  Object.assign(row, changed, { updatedAt: nextUpdatedAt(row.updatedAt) });
  tx.emit(w.updated, w.dto(row));
  return row;
}
