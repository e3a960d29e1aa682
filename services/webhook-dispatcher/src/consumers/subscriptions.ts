import type { ConsumedEvent, Orm } from '@acct/kit';
import { isOutboundEvent } from '../domain/body';
import { SubscriptionIndex } from '../domain/subscriptions';
import { subscriptionsAt, subscriptionsVersion } from '../queries/subscriptions';

/**
 * The endpoints' subscriptions as one dispatcher process last read them, so that an outbound event
 * no enabled endpoint wants (the common case: most connected apps have no endpoint) is acked in
 * microseconds, without the transaction that claims it and looks its endpoints up (issue #26).
 *
 * Kept fresh by the version row that a trigger bumps in the transaction of every change to what an
 * endpoint subscribes to (migration 20261126000500), read once per batch, after the batch's events
 * were received: the simplest scheme that is exact with any number of replicas. A replica reads
 * version v, so it has every change committed up to then; it reloads the subscriptions when v
 * moved. LISTEN/NOTIFY or a NATS broadcast would save that one-row read per batch, but they arrive
 * asynchronously after the commit (and are lost while a connection is down): a replica could
 * still skip an event caused after a create or enable was answered.
 *
 * What an endpoint receives, then: every event of its scope and types that the dispatcher takes from
 * the stream after its creation, enabling or subscription change committed (so every event caused
 * after the API answered); an event taken earlier is decided on what was committed then, as before
 * this cache. Only "nobody wants it" is decided here: an event some endpoint wants still goes
 * through the transaction, whose own read of the endpoints decides its deliveries.
 *
 * Skipping needs no claim: an event nobody wants makes no delivery whenever it is applied, and if a
 * copy of it (a redelivery) meets an endpoint created since, that endpoint's delivery is made once
 * anyway (webhook_deliveries_once, one per event and endpoint).
 */
export class Subscriptions {
  private index?: SubscriptionIndex;

  constructor(private readonly orm: Orm) {}

  /**
   * Per event, whether no enabled endpoint of its scope subscribes to its type. Never shares a read
   * started before the call (it could predate a change these events must see): the consumer asks
   * once per batch, one batch at a time.
   */
  async skip(events: ConsumedEvent[]): Promise<boolean[]> {
    const index = await this.current();
    return events.map((e) => isOutboundEvent(e.payload) && !index.wants(e.payload));
  }

  private async current(): Promise<SubscriptionIndex> {
    if (this.index && (await subscriptionsVersion(this.orm)) === this.index.version) return this.index;
    const { version, rows } = await subscriptionsAt(this.orm.em.fork());
    this.index = new SubscriptionIndex(version, rows);
    return this.index;
  }
}
