import { randomUUID } from 'node:crypto';
import { type TrustedContext, eventsStreamName, outboundSubject } from '@acct/contracts';
import { ensureEventsStream } from '@acct/kit';
import { type TestService, startServiceForTest } from '@acct/testing';
import type { WebhookConfig } from '../config';
import { webhookDispatcherService } from '../service';
import { startDelivery } from '../workers/delivery';

/** One process of the dispatcher: its own pool, NATS connection, RPC server, consumer and workers. */
export interface Replica {
  svc: TestService;
  stopDelivery: () => Promise<void>;
}

/**
 * Starts `n` dispatcher replicas into `replicas` (so that afterAll stops those started even when one
 * fails): the second and later ones on the first one's database and prefix, each with its own pool
 * and NATS connection, all on the events stream's one consumer.
 */
export async function startReplicas(config: WebhookConfig, replicas: Replica[], n = 2): Promise<void> {
  const def = webhookDispatcherService({ config });
  for (let i = 0; i < n; i++) {
    const first = replicas[0]?.svc;
    const svc = await startServiceForTest(def, { poolMax: 5, db: first?.db, prefix: first?.prefix });
    if (i === 0) await ensureEventsStream(svc.nc, svc.prefix);
    const { stop } = await startDelivery(svc.wiring, config);
    replicas.push({ svc, stopDelivery: stop });
  }
}

/** Stops the delivery loops, deletes the stream, then the replicas, the first (the database's owner) last. */
export async function stopReplicas(replicas: Replica[]): Promise<void> {
  for (const r of replicas) await r.stopDelivery();
  const first = replicas[0]?.svc;
  if (first) await (await first.nc.jetstreamManager()).streams.delete(eventsStreamName(first.prefix)).catch(() => undefined);
  for (const r of [...replicas].reverse()) await r.svc.stop();
}

/** Publishes an invoice.posted event of the context's app on the service's bus; returns its id. */
export async function publishInvoicePosted(svc: TestService, c: TrustedContext, data: Record<string, unknown>): Promise<string> {
  const id = randomUUID();
  const payload = {
    id,
    type: 'invoice.posted',
    created_at: new Date().toISOString(),
    organization_id: c.organizationId,
    connected_app_id: c.connectedAppId,
    environment: c.environment,
    data,
  };
  await svc.nc.jetstream().publish(outboundSubject(svc.prefix, 'invoice.posted'), JSON.stringify(payload), { msgID: id });
  return id;
}
