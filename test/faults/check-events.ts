/** The fault-injection test's checks of the events: every outbox row published, and applied exactly once. */
import pino from 'pino';
import { eventsStreamName } from '@acct/contracts';
import { connectNats } from '@acct/kit';
import { waitFor } from '@acct/testing';
import { ALL_OUTBOX, CONSUMER, type FaultSystem, type Figures, POSTING_SCHEMAS } from './system';

/** Every outbox row (receivables' and payables') is published, and the stream holds each at least once. */
export async function expectEveryOutboxRowInTheStream({ sql, natsUrl, prefix }: FaultSystem, figures: Figures): Promise<void> {
  // The relays republish what the crashes left behind (every OUTBOX_RELAY_INTERVAL_MS).
  const unpublishedSql = POSTING_SCHEMAS.map((s) => `(SELECT count(*)::int FROM ${s}.outbox WHERE published_at IS NULL)`).join(' + ');
  await waitFor(async () => (await sql(`SELECT ${unpublishedSql} AS n`))[0].n === 0, 120_000, 500).catch(() => undefined);
  const perService: Record<string, { rows: number; unpublished: number }> = {};
  for (const schema of POSTING_SCHEMAS) {
    const [{ rows, unpublished }] = await sql(`SELECT count(*)::int AS rows, count(*) FILTER (WHERE published_at IS NULL)::int AS unpublished FROM ${schema}.outbox`);
    perService[schema] = { rows, unpublished };
  }
  figures['outbox rows'] = POSTING_SCHEMAS.map((s) => `${s} ${perService[s]!.rows}`).join(', ');
  // Every posting service published something under the load, and nothing is left behind.
  expect(Object.fromEntries(POSTING_SCHEMAS.map((s) => [s, perService[s]!.unpublished]))).toEqual(Object.fromEntries(POSTING_SCHEMAS.map((s) => [s, 0])));
  for (const schema of POSTING_SCHEMAS) expect([schema, perService[schema]!.rows > 0]).toEqual([schema, true]);

  // Read the whole stream with an ordered consumer: one message id (= outbox id) per message.
  const nc = await connectNats(natsUrl, 'faults-reader', pino({ level: 'silent' }));
  try {
    const stream = eventsStreamName(prefix);
    const total = (await (await nc.jetstreamManager()).streams.info(stream)).state.messages;
    const counts = new Map<string, number>();
    const reader = await nc.jetstream().consumers.get(stream);
    const messages = await reader.consume({ max_messages: 1000 });
    let read = 0;
    for await (const m of messages) {
      const id = m.headers?.get('Nats-Msg-Id') || m.json<{ id: string }>().id;
      counts.set(id, (counts.get(id) ?? 0) + 1);
      if (++read >= total) break;
    }
    await messages.close();
    const outboxIds = new Set((await sql<{ id: string }>(`SELECT id FROM (${ALL_OUTBOX}) o`)).map((r) => r.id));
    const missing = [...outboxIds].filter((id) => !counts.has(id));
    const strangers = [...counts.keys()].filter((id) => !outboxIds.has(id));
    figures['stream messages'] = total;
    figures['  copies beyond the first (at least once)'] = total - counts.size;
    expect({ missing: missing.length, strangers: strangers.length }).toEqual({
      missing: 0,
      strangers: 0,
    });
  } finally {
    await nc.close();
  }
}

/** The consumer of the test applied every outbox event exactly once: none twice, none missing. */
export async function expectEveryEventAppliedOnce({ sql, prefix, consumerNc, consumerMetrics }: FaultSystem, figures: Figures): Promise<void> {
  const [{ n: outboxRows }] = await sql(`SELECT count(*)::int AS n FROM (${ALL_OUTBOX}) o`);
  // Catch up: every outbox id applied (polling; the consumer kept running through the faults).
  await waitFor(
    async () => (await sql(`SELECT count(*)::int AS n FROM (${ALL_OUTBOX}) o WHERE NOT EXISTS (SELECT 1 FROM faults_consumer.applied a WHERE a.event_id = o.id)`))[0].n === 0,
    120_000,
    500,
  ).catch(() => undefined);
  // ...and nothing left in flight: every copy and redelivery handled (acked) as well.
  const jsm = await consumerNc!.jetstreamManager();
  await waitFor(
    async () => {
      const info = await jsm.consumers.info(eventsStreamName(prefix), CONSUMER);
      return info.num_pending === 0 && info.num_ack_pending === 0;
    },
    120_000,
    500,
  ).catch(() => undefined);
  const [c] = await sql(
    `SELECT count(*)::int AS applied, count(DISTINCT event_id)::int AS distinct_ids,
            (SELECT count(*)::int FROM (${ALL_OUTBOX}) o WHERE NOT EXISTS (SELECT 1 FROM faults_consumer.applied a WHERE a.event_id = o.id)) AS missing,
            (SELECT count(*)::int FROM faults_consumer.applied a WHERE NOT EXISTS (SELECT 1 FROM (${ALL_OUTBOX}) o WHERE o.id = a.event_id)) AS strangers
       FROM faults_consumer.applied`,
  );
  // Applied per publishing service (each event once, whichever service's outbox it came from).
  const byService = await sql<{ service: string; n: number }>(
    `SELECT o.service, count(*)::int AS n FROM faults_consumer.applied a JOIN (${ALL_OUTBOX}) o ON o.id = a.event_id GROUP BY 1 ORDER BY 1`,
  );
  const metrics = await consumerMetrics.registry.getSingleMetric('events_consumed_total')!.get();
  const outcome = (o: string) => metrics.values.filter((v) => v.labels.outcome === o).reduce((s, v) => s + v.value, 0);
  figures['events applied by the consumer'] = c.applied;
  figures['  by service'] = byService.map((r) => `${r.service} ${r.n}`).join(', ');
  figures['  copies dropped as duplicates / failed applies'] = `${outcome('duplicate')} / ${outcome('failed')}`;
  expect({
    missing: c.missing,
    twice: c.applied - c.distinct_ids,
    strangers: c.strangers,
  }).toEqual({ missing: 0, twice: 0, strangers: 0 });
  expect(c.applied).toBe(outboxRows);
}
