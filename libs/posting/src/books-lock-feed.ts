import { BOOKS_LOCK_CONSUMERS, type BooksLockCopyService, ENVIRONMENTS, type ReferenceEvent, UUID, eventErrors, referenceSubject } from '@acct/contracts';
import { type ConsumedEvent, type EntityManager, EventConsumer, type ServiceWiring, type Worker, eventConsumerWorker, transactionQuery } from '@acct/kit';
import { applyBooksLock } from './books-lock';

/**
 * A posting service's copy of the books' lock date (books-lock.ts), fed by the owner's reference
 * event books_lock.updated, the one way the lock date reaches a copy: a durable consumer
 * (BOOKS_LOCK_CONSUMERS) on that event's subject applies each version with applyBooksLock (never
 * backwards; a repeat, a redelivery or an older version arriving late changes nothing). So a copy
 * that was down or behind when the owner answered PUT (503) catches up by itself once it runs, with
 * no retry of the PUT. "Once PUT answered nothing posts into the locked period" holds because the
 * owner's PUT waits (books_lock.apply) until each copy's feed applied the version.
 */

/** Why a copy must not apply a message of its subject, or undefined: the owner's envelope and data, on the event's own subject. */
export function booksLockRefusal(prefix: string, event: ConsumedEvent): string | undefined {
  const e = event.payload as Partial<ReferenceEvent<'books_lock.updated'>>;
  const subject = referenceSubject(prefix, 'books_lock.updated');
  if (e.type !== 'books_lock.updated') return `a ${JSON.stringify(e.type)} event, not books_lock.updated`;
  if (event.subject !== subject) return `a books_lock.updated event on ${event.subject}, not on ${subject}`;
  if (typeof e.organization_id !== 'string' || !UUID.test(e.organization_id)) return 'organization_id is not a uuid';
  if (!(ENVIRONMENTS as readonly unknown[]).includes(e.environment)) return 'environment is not test or live';
  const problems = eventErrors('books_lock.updated', e.data);
  if (problems.length > 0) return `data is not a lock date: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`;
  return undefined;
}

/** Applies one books_lock.updated event (refused ones never get here) to the copy, in the consumer's transaction. */
export async function applyBooksLockEvent(em: EntityManager, event: ConsumedEvent): Promise<void> {
  const e = event.payload as unknown as ReferenceEvent<'books_lock.updated'>;
  await applyBooksLock(await transactionQuery(em), { organizationId: e.organization_id, environment: e.environment }, e.data.version, e.data.lock_date);
}

/** The durable consumer that feeds `service`'s copy of the lock date. */
export function booksLockConsumer(w: Pick<ServiceWiring, 'nc' | 'prefix' | 'orm' | 'log' | 'metrics'>, service: BooksLockCopyService): EventConsumer {
  return new EventConsumer({
    nc: w.nc,
    prefix: w.prefix,
    orm: w.orm,
    log: w.log,
    metrics: w.metrics,
    name: BOOKS_LOCK_CONSUMERS[service],
    filterSubject: referenceSubject(w.prefix, 'books_lock.updated'),
    apply: applyBooksLockEvent,
    refuse: (event) => booksLockRefusal(w.prefix, event),
    // One row per organization and environment: replicas apply one scope's events one transaction at a time.
    partitionOf: (event) => {
      const p = event.payload as Partial<ReferenceEvent>;
      return typeof p.organization_id === 'string' ? `${p.organization_id}/${String(p.environment)}` : undefined;
    },
  });
}

/** Runs the copy's consumer beside the RPC server (the events stream is made if it does not exist yet). */
export function booksLockFeedWorker(w: Pick<ServiceWiring, 'nc' | 'prefix' | 'orm' | 'log' | 'metrics'>, service: BooksLockCopyService): Worker {
  return eventConsumerWorker('books-lock-feed', w, booksLockConsumer(w, service));
}
