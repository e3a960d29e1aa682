import { outboundSubject, type OutboundEventType } from '@acct/contracts';
import { type GatewayConfig } from './config';
import { Outbox, type OutboxOptions, type ServiceMetrics, type ServiceRuntime, ensureEventsStream } from '@acct/kit';

/**
 * The gateway's outbox: the events of its own records (api_key.revoked, API-DECISIONS §13), written
 * in the transaction that makes the change by whoever makes it (the dashboard in this process, or
 * the admin CLI in its own), published to the events stream by the relay this process runs, and
 * delivered by the webhook dispatcher like every outbound event.
 *
 * The admin CLI does not know the stack's NATS_PREFIX for sure (it acts on a database), so the
 * gateway's rows store their subject without it (gatewayOutboundSubject); this process's Outbox puts
 * its own prefix before each when it sends (OutboxOptions.subjectPrefix).
 */

/** Stands for the prefix while the subject is derived from the one catalogue (outboundSubject). */
const PREFIX_SLOT = '_';

/** The subject an outbound event of the gateway is stored under in its outbox: outboundSubject without the prefix. */
export function gatewayOutboundSubject(type: OutboundEventType): string {
  return outboundSubject(PREFIX_SLOT, type).slice(PREFIX_SLOT.length + 1);
}

/** An Outbox on the gateway's table that publishes under `prefix`. */
export function gatewayOutbox(rt: Pick<ServiceRuntime, 'nc' | 'orm' | 'log'>, prefix: string, metrics?: ServiceMetrics, opts: Omit<OutboxOptions, 'subjectPrefix'> = {}): Outbox {
  return new Outbox(rt.nc, rt.orm, rt.log, metrics, { ...opts, subjectPrefix: prefix });
}

/**
 * In main.ts, as startService does for a posting service: the events stream, a first relay pass
 * (rows committed while no gateway ran), then the relay every OUTBOX_RELAY_INTERVAL_MS and the
 * backlog gauges. Returns the outbox; stop it with stopRelay() at shutdown.
 */
export async function startGatewayOutbox(rt: ServiceRuntime, config: GatewayConfig, metrics: ServiceMetrics): Promise<Outbox> {
  await ensureEventsStream(rt.nc, config.NATS_PREFIX, { duplicateWindowMs: config.EVENTS_DUPLICATE_WINDOW_S * 1000, replicas: config.EVENTS_STREAM_REPLICAS, log: rt.log });
  const outbox = gatewayOutbox(rt, config.NATS_PREFIX, metrics, { relayIntervalMs: config.OUTBOX_RELAY_INTERVAL_MS });
  await outbox.relayOnce().catch((err: unknown) => rt.log.warn({ err }, 'initial outbox relay failed'));
  outbox.startRelay();
  outbox.registerBacklogMetrics();
  return outbox;
}
