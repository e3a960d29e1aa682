import { eventsStreamName } from '@acct/contracts';
import { firstRow } from './base';
import type { TestService } from './service';

/**
 * The outbox relay heals a crash between commit and publish, in a posting service: `work` commits
 * `rows` outbox rows while the inline publish never happens (the process "dies"); nothing reaches
 * the stream and the backlog metric shows the rows until the relay publishes each once; a second
 * pass finds nothing, and a row published but not marked (a crash after publish) is published
 * again and dropped by the stream as a duplicate of the same message id.
 */
export async function expectRelayHeals(svc: TestService, work: () => Promise<unknown>, rows: number): Promise<void> {
  const outbox = svc.wiring.outbox!;
  const jsm = await svc.nc.jetstreamManager();
  const streamMessages = async () => (await jsm.streams.info(eventsStreamName(svc.prefix))).state.messages;
  const backlog = async () => svc.metrics.registry.getSingleMetricAsString('outbox_unpublished_rows');
  const before = await streamMessages();
  const publish = jest.spyOn(outbox, 'publish').mockResolvedValue(undefined);
  try {
    await work();
  } finally {
    publish.mockRestore();
  }
  await outbox.flushMarks();
  expect(await streamMessages()).toBe(before);
  const pending = await svc.sql(`SELECT id FROM outbox WHERE published_at IS NULL`);
  expect(pending).toHaveLength(rows);
  expect(await backlog()).toMatch(new RegExp(`outbox_unpublished_rows\\S* ${rows}$`, 'm'));
  expect(await outbox.relayOnce()).toBe(rows);
  expect(await streamMessages()).toBe(before + rows);
  expect(await backlog()).toMatch(/outbox_unpublished_rows\S* 0$/m);
  expect(await outbox.relayOnce()).toBe(0);
  await svc.sql(`UPDATE outbox SET published_at = NULL WHERE id = ?`, [firstRow(pending).id]);
  expect(await outbox.relayOnce()).toBe(1);
  expect(await streamMessages()).toBe(before + rows);
}
