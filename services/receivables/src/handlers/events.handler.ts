import { single } from '@acct/contracts';
import { type RpcServer, registerReads } from '@acct/kit';
import { type Books, isUniqueViolation, retryOnceOnUnique } from '@acct/posting';
import { InboundEventSchema, eventDto } from '../entities';
import { type EventInput, classifyEvent, duplicateEvent, eventHash, storeEvent } from '../flows/events';

export function registerEventHandlers(server: RpcServer, books: Books): void {
  server.handle('events.create', async (req) => {
    const b = req.body;
    const input: EventInput = { externalEventId: b.external_event_id, eventType: b.event_type, payload: b.payload, idempotencyKey: req.ctx.idempotencyKey ?? null };
    classifyEvent(input.eventType);
    const hash = eventHash(input.eventType, input.payload);
    const replay = async () => {
      const dup = await duplicateEvent(books.db(req.ctx), input, hash);
      return dup ? { ok: true as const, status: 200 as const, replayed: true, body: single('event', eventDto(dup, true)) } : null;
    };
    const dup = await replay();
    if (dup) return dup;
    try {
      // The payment's external id may race in from another event (another invoice): the second run
      // finds it used and stores this event as failed instead of answering 500.
      const event = await retryOnceOnUnique('payments_external_id', () => books.transact(req.ctx, (tx) => storeEvent(tx, input, hash)));
      return { ok: true, status: 201, body: single('event', eventDto(event, false)) };
    } catch (e) {
      // A concurrent send of the same event won the race: answer as its duplicate.
      if (isUniqueViolation(e, 'inbound_events_external_id') || isUniqueViolation(e, 'inbound_events_idempotency_key')) {
        const again = await replay();
        if (again) return again;
      }
      throw e;
    }
  });

  registerReads(server, books.orm, 'events', {
    schema: InboundEventSchema,
    name: 'event',
    dto: (e) => eventDto(e, false),
    filters: { event_type: 'eventType', status: 'status', source: 'source' },
  });
}
