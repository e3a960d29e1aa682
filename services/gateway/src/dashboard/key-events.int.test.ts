import { connect, type NatsConnection } from 'nats';
import { eventsStreamName, outboundSubject, validateEvent } from '@acct/contracts';
import { ensureEventsStream, migrate, type Orm } from '@acct/kit';
import { NATS_URL, freshDatabase, silentLogger, uniquePrefix, type TestDatabase } from '@acct/testing';
import { type Bootstrap, bootstrap, createApiKey, revokeApiKey } from '../admin/admin';
import { openGatewayOrm } from '../db';
import { gatewayOutbox } from '../events-outbox';
import { emitApiKeyRevoked } from './key-events';

interface OutboxRow {
  id: string;
  subject: string;
  payload: { id: string; type: string; created_at: string; organization_id: string; connected_app_id: string; environment: string; data: Record<string, string> };
  published_at: Date | null;
}

/** api_key.revoked through the gateway's outbox, against real Postgres and NATS JetStream. */
describe('api_key.revoked: the gateway outbox', () => {
  let db: TestDatabase;
  let orm: Orm;
  let nc: NatsConnection;
  let org: Bootstrap;
  const prefix = uniquePrefix();

  const rowsOf = async (keyId: string) =>
    orm.em.fork().execute<OutboxRow[]>(`SELECT id, subject, payload, published_at FROM outbox WHERE payload->'data'->>'api_key_id' = ? ORDER BY seq`, [keyId]);
  const newKey = () => createApiKey(orm.em.fork(), org.connected_app_id, 'live');

  beforeAll(async () => {
    db = await freshDatabase('acct_gw_key_events');
    orm = await openGatewayOrm(db.url, 4);
    await migrate(orm);
    org = await bootstrap(orm.em.fork(), 'Key events org');
    nc = await connect({ servers: NATS_URL });
    await ensureEventsStream(nc, prefix);
  });
  afterAll(async () => {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(eventsStreamName(prefix)).catch(() => false);
    await nc.close();
    await orm.close(true);
    await db.drop();
  });

  it('revoking a key (the admin function) writes one api_key.revoked row with the revocation, and a second revoke none', async () => {
    const key = await newKey();
    const { row: revoked } = await revokeApiKey(orm.em.fork(), key.key);
    const [row, ...more] = await rowsOf(key.id);
    expect(more).toEqual([]);
    expect(row!.subject).toBe('events.outbound.api_key.revoked');
    expect(row!.published_at).toBeNull();
    expect(row!.payload).toEqual({
      id: row!.id,
      type: 'api_key.revoked',
      created_at: revoked.revokedAt!.toISOString(),
      organization_id: org.organization_id,
      connected_app_id: org.connected_app_id,
      environment: 'live',
      data: { api_key_id: key.id, connected_app_id: org.connected_app_id, revoked_at: revoked.revokedAt!.toISOString() },
    });
    expect(validateEvent('api_key.revoked', row!.payload.data)).toBe(true);
    // The revocation and the row are one commit: the key reads revoked at the same instant.
    const [stored] = await orm.em.fork().execute<{ revoked_at: string }[]>(`SELECT revoked_at FROM api_keys WHERE id = ?`, [key.id]);
    expect(new Date(stored!.revoked_at).toISOString()).toBe(row!.payload.data.revoked_at);
    await revokeApiKey(orm.em.fork(), key.id);
    expect(await rowsOf(key.id)).toHaveLength(1);
  });

  it('writes nothing when the transaction that revokes rolls back: neither the revocation nor the event', async () => {
    const key = await newKey();
    await expect(
      orm.em.fork().transactional(async (em) => {
        await revokeApiKey(em, key.id);
        expect(await rowsOf(key.id)).toEqual([]); // not committed yet: invisible to another connection
        throw new Error('the caller fails after revoking');
      }),
    ).rejects.toThrow('the caller fails');
    expect(await rowsOf(key.id)).toEqual([]);
    const [stored] = await orm.em.fork().execute<{ revoked_at: string | null }[]>(`SELECT revoked_at FROM api_keys WHERE id = ?`, [key.id]);
    expect(stored!.revoked_at).toBeNull();
  });

  it('refuses to write outside a transaction (the event must commit with its revocation)', async () => {
    const k = {
      api_key_id: org.connected_app_id,
      connected_app_id: org.connected_app_id,
      organization_id: org.organization_id,
      environment: 'test' as const,
      revoked_at: new Date().toISOString(),
    };
    await expect(emitApiKeyRevoked(orm.em.fork(), k)).rejects.toThrow(/not in a transaction/);
  });

  it("is published by the gateway's relay on the stack's outbound subject, in commit order, and marked", async () => {
    const a = await newKey();
    const b = await newKey();
    await revokeApiKey(orm.em.fork(), a.id);
    await revokeApiKey(orm.em.fork(), b.key);
    const outbox = gatewayOutbox({ nc, orm, log: silentLogger() }, prefix, undefined, { relayMinAgeMs: 0 });
    expect(await outbox.relayOnce()).toBeGreaterThanOrEqual(2);
    const subject = outboundSubject(prefix, 'api_key.revoked');
    const jsm = await nc.jetstreamManager();
    const [ra] = await rowsOf(a.id);
    const [rb] = await rowsOf(b.id);
    const ma = await jsm.streams.getMessage(eventsStreamName(prefix), { last_by_subj: subject });
    expect(ma.json()).toEqual(rb!.payload); // b was revoked last
    expect(ma.header.get('Nats-Msg-Id')).toBe(rb!.id);
    const first = await jsm.streams.getMessage(eventsStreamName(prefix), { seq: ma.seq - 1 });
    expect([first.subject, first.json()]).toEqual([subject, ra!.payload]);
    expect(ra!.published_at).not.toBeNull();
    expect(rb!.published_at).not.toBeNull();
    await outbox.stopRelay();
  });
});
