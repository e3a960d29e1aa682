import { AppError, type RpcOk, type TrustedContext, actionReply, single } from '@acct/contracts';
import type { Books } from './books';
import { createOnce, isUniqueViolation } from './create-once';
import type { Db, Tx } from './unit-of-work';

/** What a flow that creates or moves a record answers: the record as it is now, and whether the call only repeated an earlier one. */
export interface Outcome<T> {
  record: T;
  replayed: boolean;
}

/** How a resource is answered: the key of its reply envelope (`bill`) and its dto. */
export interface Answer<N extends string, E, D> {
  name: N;
  dto: (e: E) => D;
}

/** A create whose flow finds its own replays: 201 with the new record, or 200 (replayed) with the first one. */
export function createdReply<N extends string, E, D>(a: Answer<N, E, D>, o: Outcome<E>): RpcOk<{ data: D } & Record<N, D>> {
  return { ok: true, status: o.replayed ? 200 : 201, replayed: o.replayed, body: single(a.name, a.dto(o.record)) };
}

/** The reply of an action route (post, reverse): 200 with the record, replayed when it already was where the action leads. */
export function actionDone<N extends string, E, D, A extends string>(a: Answer<N, E, D>, action: A, o: Outcome<E>) {
  return { ok: true as const, status: 200 as const, replayed: o.replayed, body: actionReply(a.name, a.dto(o.record), action) };
}

/** Where a resource created once per external id keeps it: the unique constraint, and the body field (e.g. external_bill_id). */
export interface CreatedOnce {
  constraint: string;
  external: string;
}

/**
 * createOnce (API-DECISIONS §1) of a record built from the request: `store` writes it and the reply
 * is 201 with its dto; a create that loses on `constraint` finds the `existing` record and answers
 * it (200, replayed) when it has the `same` content, else 409 naming the external id.
 */
export function createRecordOnce<N extends string, E, D>(
  a: Answer<N, E, D> & CreatedOnce,
  o: { row: E; store: () => Promise<unknown>; existing: () => Promise<E | null>; same: (existing: E) => boolean },
): Promise<RpcOk<{ data: D } & Record<N, D>>> {
  return createOnce({
    constraint: a.constraint,
    create: async () => {
      await o.store();
      return { ok: true, status: 201, body: single(a.name, a.dto(o.row)) };
    },
    existing: o.existing,
    same: o.same,
    reply: (ex) => single(a.name, a.dto(ex)),
    field: `/${a.external}`,
    what: a.name.replace(/_/g, ' '),
  });
}

/**
 * How createInBooks stores a new record: `flow` in one transaction of the books, or, for a `draft`
 * (no ledger effect, nothing to post), one write on a connection of the books outside any transaction.
 */
export type StoreOnce<E> = { flow: (tx: Tx, row: E) => Promise<unknown> } | { draft: (db: Db, row: E) => Promise<unknown> };

/** How a record is created once per external id: how it is stored, how a repeat finds the first (by the new row's external id), and whether that one has the same content. */
export type CreateOnce<E> = StoreOnce<E> & { find: (db: Db, row: E) => Promise<E | null>; same: (existing: E, row: E) => boolean };

/** createRecordOnce of `row` as `o` stores it, finds a first one and compares it (CreateOnce). */
export function createInBooks<N extends string, E, D>(
  books: Books,
  ctx: TrustedContext,
  a: Answer<N, E, D> & CreatedOnce,
  row: E,
  o: CreateOnce<E>,
): Promise<RpcOk<{ data: D } & Record<N, D>>> {
  const store = () => ('flow' in o ? books.transact(ctx, (tx) => o.flow(tx, row)) : o.draft(books.db(ctx), row));
  return createRecordOnce(a, { row, store, existing: () => o.find(books.db(ctx), row), same: (ex) => o.same(ex, row) });
}

/** Runs `run`; losing on the resource's unique constraint means the caller's external id is taken by another record: 409 naming it. */
export async function refuseTakenExternalId<T>(a: { name: string } & CreatedOnce, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!isUniqueViolation(e, a.constraint)) throw e;
    throw AppError.conflict(`${a.external} is already used by another ${a.name.replace(/_/g, ' ')}.`, [
      { field: `/${a.external}`, issue: 'already_used', message: `Choose another ${a.external}.` },
    ]);
  }
}

/**
 * A PATCH of a record in one transaction of the books, answered 200 with the record after it; an
 * update that takes an external id another record has loses on the unique constraint: 409 naming it.
 */
export async function updateInBooks<N extends string, E, D>(
  books: Books,
  ctx: TrustedContext,
  a: Answer<N, E, D> & CreatedOnce,
  update: (tx: Tx) => Promise<E>,
): Promise<RpcOk<{ data: D } & Record<N, D>>> {
  const record = await refuseTakenExternalId(a, () => books.transact(ctx, update));
  return { ok: true, status: 200, body: single(a.name, a.dto(record)) };
}
