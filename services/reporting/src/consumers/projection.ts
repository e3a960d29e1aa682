import {
  CONSUMERS,
  ENVIRONMENTS,
  type PostingEvent,
  type PostingSource,
  type ReferenceEvent,
  type ReferenceEventType,
  eventsSubjectFilter,
  isReferenceEventType,
  referenceSubject,
} from '@acct/contracts';
import { BATCH_LINGER_MS, type ConsumedEvent, type EntityManager, EventConsumer, type ServiceWiring, type Worker, eventConsumerWorker, transactionQuery } from '@acct/kit';
import { isUuid, postingEventProblem } from '@acct/ledger';
import { type Row, entryRow, partyRow, postingRows, sumPostingRows } from '../domain/projection';
import { addEntries, addPostingRowsOfBatch, addVendorPayments, upsertParties } from '../queries/projection';

/**
 * Applies one event to the projection, in the consumer's transaction (after its claim): a batch of
 * one (applyEvents), the one apply path. Every write commutes: entries are inserted once by id,
 * documents once by id, parties last-writer-wins by the event's time, so duplicates and any delivery
 * order give the same tables.
 */
export function applyEvent(em: EntityManager, event: ConsumedEvent): Promise<void> {
  return applyEvents(em, [event]);
}

const isPartyEvent = (type: unknown): boolean => type === 'customer.created' || type === 'customer.updated' || type === 'vendor.created' || type === 'vendor.updated';

/** Whether reporting applies events of this type (postings, customers, vendors); the others are acked unclaimed ("skipped"). */
export const isReportingEvent = (event: ConsumedEvent): boolean => event.payload.type === 'journal_entry.posted' || isPartyEvent(event.payload.type);

/**
 * Applies a batch of events (claimed fresh, in stream order; a single event is a batch of one)
 * set-based, with the effects of applying each in turn: the entries, their lines and every table of
 * totals summed per key in memory (sumPostingRows) in one statement, sorted by key (an entry id seen again, in the batch or
 * before it, is skipped: then the rows of the new ones go in a second statement), then their vendor
 * payments in one statement; customers and vendors in one upsert.
 */
export async function applyEvents(em: EntityManager, events: ConsumedEvent[]): Promise<void> {
  const postings: { e: PostingEvent<PostingSource>; eventId: string }[] = [];
  const parties: Row[] = [];
  const entryIds = new Set<string>();
  for (const event of events) {
    const type = event.payload.type;
    if (type === 'journal_entry.posted') {
      const e = event.payload as unknown as PostingEvent<PostingSource>;
      const id = String(e.entry.id).toLowerCase();
      if (entryIds.has(id)) continue; // the same entry under another event id, earlier in the batch
      entryIds.add(id);
      postings.push({ e, eventId: event.id });
    } else if (isPartyEvent(type)) parties.push(partyRow(event.payload as unknown as ReferenceEvent));
  }
  if (postings.length === 0 && parties.length === 0) return; // outbound events only (webhooks)
  const q = await transactionQuery(em);
  if (postings.length > 0) {
    const all = postings.map((p) => p.e);
    const { inserted, withRows } = await addEntries(
      q,
      postings.map((p) => entryRow(p.e, p.eventId)),
      sumPostingRows(all.map(postingRows)),
    );
    const fresh = withRows ? all : all.filter((e) => inserted.has(String(e.entry.id).toLowerCase()));
    if (fresh.length > 0) {
      // An entry was there already (under another event id): the rows of the others, summed again.
      if (!withRows) await addPostingRowsOfBatch(q, sumPostingRows(fresh.map(postingRows)));
      const reversed = fresh.flatMap((e) => e.entry.reverses_entry_id ?? []);
      // Only vendor payments and the entries reversals reverse can change vendor_payment_years.
      if (reversed.length > 0 || fresh.some((e) => e.entry.source_type === 'vendor_payment')) {
        await addVendorPayments(
          q,
          fresh.map((e) => e.entry.id),
          reversed,
        );
      }
    }
  }
  await upsertParties(q, parties);
}

/**
 * Why reporting must not apply an event, or undefined: the stream is written by services, but the
 * projection takes nothing a posting service would not have posted. A journal entry must pass the
 * posting rules (postingEventProblem: schema, balanced, amounts, lines, chart, account ids, source
 * type of the subject's service, date window); a reference event must be on its own subject with
 * the ids and environment a projection row needs. Other types (outbound events for webhooks, the
 * lock date's books_lock.updated) are not reporting's: skipped (isReportingEvent), never refused.
 */
export function refusalOf(prefix: string, event: ConsumedEvent): string | undefined {
  const p = event.payload;
  if (p.type === 'journal_entry.posted') return postingEventProblem(prefix, event.subject, p);
  if (isPartyEvent(p.type) && isReferenceEventType(p.type as string)) {
    const type = p.type as ReferenceEventType;
    if (event.subject !== referenceSubject(prefix, type)) return `a ${type} event on ${event.subject}, not on ${referenceSubject(prefix, type)}`;
    const e = p as unknown as Partial<ReferenceEvent>;
    if (!isUuid(e.organization_id) || !(ENVIRONMENTS as readonly unknown[]).includes(e.environment)) return 'organization_id is not a uuid or environment is not test or live';
    if (typeof e.data !== 'object' || e.data === null || !isUuid((e.data as { id?: unknown }).id)) return 'data.id is not a uuid';
    if (typeof e.created_at !== 'string' || Number.isNaN(Date.parse(e.created_at))) return 'created_at is not a date-time';
  }
  return undefined;
}

/**
 * Replicas apply one organization's events one transaction at a time (an advisory lock per
 * organization, taken in sorted order): every row the projection upserts belongs to one
 * organization, so two replicas never wait on each other's rows in opposite orders (deadlocks).
 */
export function organizationOf(event: ConsumedEvent): string | undefined {
  const org = event.payload.organization_id;
  return typeof org === 'string' ? org : undefined;
}

/** The durable consumer of the events stream (reporting-postings) that applies each event. */
export function projectionConsumer(w: Pick<ServiceWiring, 'nc' | 'prefix' | 'orm' | 'log' | 'metrics'>, o: { ackWaitMs?: number } = {}): EventConsumer {
  return new EventConsumer({
    ackWaitMs: o.ackWaitMs,
    nc: w.nc,
    prefix: w.prefix,
    orm: w.orm,
    log: w.log,
    metrics: w.metrics,
    name: CONSUMERS.reportingPostings,
    filterSubject: eventsSubjectFilter(w.prefix),
    // One apply path: a single event (retry of a parked one) is a batch of one.
    apply: applyEvent,
    applyBatch: applyEvents,
    refuse: (event) => refusalOf(w.prefix, event),
    // Outbound (webhook) and lock-date events: applying them changes nothing, so no claim, no transaction.
    skip: (events) => Promise.resolve(events.map((e) => !isReportingEvent(e))),
    partitionOf: organizationOf,
    // A posting burst's events share a transaction (reports are read from the projection: a few tens of ms later is fine).
    lingerMs: BATCH_LINGER_MS,
  });
}

/** Runs the consumer beside the RPC server; the stream may not exist yet (reporting can start before any posting service). */
export function consumerWorker(w: Pick<ServiceWiring, 'nc' | 'prefix' | 'log'>, consumer: EventConsumer): Worker {
  return eventConsumerWorker('consumer', w, consumer);
}
