import type { Subscription } from 'nats';
import type { ParkedEventView, ParkedEventsReply, ParkedEventsRequest } from '@acct/contracts';
import { type ConsumedEvent, type EventConsumerOptions, decodeEvent } from './consumer-event';
import { type ParkedRow, claimEvent, deleteParked, discardParkedRow, listParkedRows, parkedRowAt } from './consumer-store';
import { decodeJson, encodeJson } from './payloads';

/** A parked-events command that cannot be done (unknown seq, still refused): the operator is told why. */
export class ParkedEventError extends Error {}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

function viewOf(r: ParkedRow, withRaw: boolean): ParkedEventView {
  const view: ParkedEventView = {
    id: `${r.consumer}/${r.stream_seq}`,
    consumer: r.consumer,
    stream_seq: Number(r.stream_seq),
    subject: r.subject,
    event_id: r.event_id,
    reason: r.reason,
    error: r.error,
    deliveries: r.deliveries,
    parked_at: iso(r.parked_at)!,
    discarded_at: iso(r.discarded_at),
  };
  if (withRaw) {
    const raw = rawOf(r);
    view.raw_base64 = raw ? Buffer.from(raw).toString('base64') : null;
    try {
      view.raw_text = raw ? utf8.decode(raw) : null;
    } catch {
      view.raw_text = null;
    }
  }
  return view;
}

/** The message as received; rows parked before raw was kept (version 2) have only their payload. */
function rawOf(r: ParkedRow): Uint8Array | null {
  if (r.raw) return r.raw;
  return r.payload == null ? null : encodeJson(r.payload);
}

/**
 * The operator's commands on the messages a consumer parked (npm run admin -- events parked ...):
 * list, show, retry (replay) and discard (drop), also served over NATS by serve().
 */
export class ParkedAdmin {
  constructor(private readonly o: Pick<EventConsumerOptions, 'nc' | 'orm' | 'log' | 'name' | 'apply' | 'refuse'>) {}

  /** Parked messages of this consumer in stream order; discarded ones only when asked. */
  async list(opts: { includeDiscarded?: boolean; limit?: number } = {}): Promise<ParkedEventView[]> {
    const limit = Math.min(Math.max(Math.trunc(opts.limit ?? 100), 1), 1000);
    const rows = await listParkedRows(this.o.orm, this.o.name, opts.includeDiscarded === true, limit);
    return rows.map((r) => viewOf(r, false));
  }

  /** One parked message with its raw bytes. */
  async show(seq: number): Promise<ParkedEventView> {
    return viewOf(await this.row(seq), true);
  }

  /** Marks a parked message discarded: no longer counted in events_parked_messages, never parked again by a rebuild. */
  async discard(seq: number): Promise<ParkedEventView> {
    const row = await discardParkedRow(this.o.orm, this.o.name, seq);
    if (!row) {
      await this.row(seq); // says "not parked" when there is none
      throw new ParkedEventError(`the message at stream seq ${seq} was already discarded`);
    }
    return viewOf(row, false);
  }

  /**
   * Applies a parked message now (after a fix of the consumer or of what it depends on): decoded
   * and checked as on delivery, then claimed and applied, and its parked row removed, in one
   * transaction. Throws ParkedEventError when it is still malformed or refused.
   */
  async retry(seq: number): Promise<'applied' | 'duplicate'> {
    const event = await this.replayable(seq);
    const { name } = this.o;
    const fresh = await this.o.orm.em.fork().transactional(async (em) => {
      const claimed = await claimEvent(em, name, event.id, event.seq);
      if (claimed) await this.o.apply(em, event);
      await deleteParked(em, name, seq);
      return claimed;
    });
    this.o.log.info({ consumer: name, seq, event_id: event.id, applied: fresh }, 'parked event retried');
    return fresh ? 'applied' : 'duplicate';
  }

  /** The event a parked message holds, decoded and checked as on delivery. */
  private async replayable(seq: number): Promise<ConsumedEvent> {
    const row = await this.row(seq);
    if (row.discarded_at) throw new ParkedEventError(`the message at stream seq ${seq} was discarded`);
    const raw = rawOf(row);
    const decoded = raw ? decodeEvent({ data: raw }) : { malformed: 'no bytes kept' };
    if (!('payload' in decoded)) throw new ParkedEventError(`still malformed: ${decoded.malformed}`);
    const event: ConsumedEvent = { id: decoded.payload.id, subject: row.subject, seq: Number(row.stream_seq), payload: decoded.payload };
    const refused = this.o.refuse?.(event);
    if (refused) throw new ParkedEventError(`still refused: ${refused}`);
    return event;
  }

  private async row(seq: number): Promise<ParkedRow> {
    const row = await parkedRowAt(this.o.orm, this.o.name, seq);
    if (!row) throw new ParkedEventError(`no message at stream seq ${seq} is parked by ${this.o.name}`);
    return row;
  }

  /** Answers ParkedEventsRequest on `subject` (one replica of the queue group each). */
  serve(subject: string): Subscription {
    return this.o.nc.subscribe(subject, {
      queue: `${subject}.q`,
      callback: (_err, msg) => {
        void this.answer(msg.data)
          .catch((e: unknown): ParkedEventsReply => {
            if (!(e instanceof ParkedEventError)) this.o.log.error({ err: e, consumer: this.o.name }, 'parked-events command failed');
            return { ok: false, error: e instanceof Error ? e.message : String(e) };
          })
          .then((reply) => msg.respond(encodeJson(reply)));
      },
    });
  }

  private async answer(data: Uint8Array): Promise<ParkedEventsReply> {
    const req = decodeJson<ParkedEventsRequest>(data);
    if (req?.action === 'list') return { ok: true, events: await this.list({ includeDiscarded: req.include_discarded, limit: req.limit }) };
    if (!req || !Number.isSafeInteger(req.stream_seq) || req.stream_seq < 1) return { ok: false, error: 'stream_seq must be a positive integer' };
    if (req.action === 'show') return { ok: true, event: await this.show(req.stream_seq) };
    if (req.action === 'discard') return { ok: true, event: await this.discard(req.stream_seq) };
    if (req.action === 'retry') return { ok: true, outcome: await this.retry(req.stream_seq) };
    return { ok: false, error: `unknown action ${String((req as { action?: unknown }).action)}` };
  }
}
