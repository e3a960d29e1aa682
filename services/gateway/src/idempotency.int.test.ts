import { randomUUID } from 'node:crypto';
import { waitFor } from '@acct/testing';
import { IdempotencyStore } from './idempotency';
import { json } from './testing/fakes';
import { gatewayBed } from './testing/int-gateway';

/** Idempotency-Key through the gateway, on the real idempotency table. */
const bed = gatewayBed();
const { gateway, call, received } = bed;

describe('gateway Idempotency-Key, against real Postgres and NATS', () => {
  const body = { external_customer_id: 'idem-1', name: 'Idem' };

  it('replays the first response for the same key and request, without calling the service again', async () => {
    const { base } = await gateway();
    const headers = { 'idempotency-key': 'k-1' };
    const first = await call(base, '/api/v1/customers', { key: bed.org.test_key, method: 'POST', json: body, headers });
    const second = await call(base, '/api/v1/customers', { key: bed.org.test_key, method: 'POST', json: body, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await json(second)).toEqual(await json(first));
    expect(received).toHaveLength(1);
    // The same key under another API key is a different record.
    const third = await call(base, '/api/v1/customers', { key: bed.org.live_key, method: 'POST', json: body, headers });
    expect(third.headers.get('idempotent-replayed')).toBeNull();
    expect(received).toHaveLength(2);
  });

  it('refuses the same key with a different body with 409 conflict', async () => {
    const { base } = await gateway();
    const headers = { 'idempotency-key': 'k-2' };
    await call(base, '/api/v1/customers', { key: bed.org.test_key, method: 'POST', json: body, headers });
    const r = await call(base, '/api/v1/customers', { key: bed.org.test_key, method: 'POST', json: { ...body, name: 'Other' }, headers });
    expect(r.status).toBe(409);
    expect((await json(r)).error.details[0].issue).toBe('reused_with_different_request');
  });

  it('sends a repeat while the first is in flight on to the service with the key and fingerprint, and passes on its answer', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    bed.handlers['customers.create'] = async () => {
      if (received.length > 1) return { ok: false, error: { code: 'conflict', message: 'in flight', details: [{ field: 'Idempotency-Key', issue: 'in_flight', message: 'x' }] } };
      await gate;
      return { ok: true, status: 201, body: { data: {} } };
    };
    const { base } = await gateway();
    const headers = { 'idempotency-key': 'k-3' };
    const first = call(base, '/api/v1/customers', { key: bed.org.test_key, method: 'POST', json: body, headers });
    await waitFor(async () => received.length === 1);
    const second = await call(base, '/api/v1/customers', { key: bed.org.test_key, method: 'POST', json: body, headers });
    expect(second.status).toBe(409);
    expect((await json(second)).error.details[0].issue).toBe('in_flight');
    expect(received).toHaveLength(2);
    expect(received[1]!.ctx.idempotencyKey).toBe('k-3');
    expect(received[1]!.ctx.idempotencyFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(received[1]!.ctx.idempotencyFingerprint).toBe(received[0]!.ctx.idempotencyFingerprint);
    release();
    expect((await first).status).toBe(201);
  });

  it('does not keep a 5xx answer: a retry with the same key runs again', async () => {
    const { base } = await gateway();
    await bed.stopFake();
    const headers = { 'idempotency-key': 'k-4' };
    expect((await call(base, '/api/v1/customers', { key: bed.org.test_key, method: 'POST', json: body, headers })).status).toBe(503);
    bed.startFake();
    const r = await call(base, '/api/v1/customers', { key: bed.org.test_key, method: 'POST', json: body, headers });
    expect(r.status).toBe(201);
    expect(r.headers.get('idempotent-replayed')).toBeNull();
  });

  it('keeps and replays a 4xx answer of the service', async () => {
    bed.handlers['customers.create'] = async () => ({ ok: false, error: { code: 'conflict', message: 'taken', details: [] } });
    const { base } = await gateway();
    const headers = { 'idempotency-key': 'k-5' };
    const a = await call(base, '/api/v1/customers', { key: bed.org.test_key, method: 'POST', json: body, headers });
    const b = await call(base, '/api/v1/customers', { key: bed.org.test_key, method: 'POST', json: body, headers });
    expect([a.status, b.status]).toEqual([409, 409]);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(received).toHaveLength(1);
    // The replayed error carries the replay's own request id.
    const replayed = await json(b);
    expect(replayed.error.request_id).toBe(b.headers.get('request-id'));
    expect(replayed.error.request_id).not.toBe(a.headers.get('request-id'));
  });

  it('still answers with the work done when recording the response fails', async () => {
    const idem = new IdempotencyStore(bed.orm, 3600);
    idem.complete = async () => {
      throw new Error('connection lost while recording');
    };
    const { base } = await gateway({ idempotency: idem });
    const r = await call(base, '/api/v1/customers', { key: bed.org.test_key, method: 'POST', json: body, headers: { 'idempotency-key': 'k-rec' } });
    expect(r.status).toBe(201);
    expect(received).toHaveLength(1);
  });

  it('frees a key whose request died in flight (its gateway was killed) after the in-flight bound, not before', async () => {
    const idem = new IdempotencyStore(bed.orm, 3600, 15);
    const apiKeyId = randomUUID();
    expect(await idem.begin(apiKeyId, 'k-crash', 'fp')).toEqual({ kind: 'proceed' });
    // The gateway dies here: no complete(), no release(). A retry 5 s later still waits...
    await bed.orm.em.getConnection().execute(`UPDATE idempotency_keys SET created_at = now() - interval '5 seconds' WHERE key = 'k-crash'`);
    expect(await idem.begin(apiKeyId, 'k-crash', 'fp')).toEqual({ kind: 'in_flight' });
    // ...one after the bound runs the request again.
    await bed.orm.em.getConnection().execute(`UPDATE idempotency_keys SET created_at = now() - interval '16 seconds' WHERE key = 'k-crash'`);
    expect(await idem.begin(apiKeyId, 'k-crash', 'fp')).toEqual({ kind: 'proceed' });
  });

  it('refuses a key longer than 255 characters', async () => {
    const { base } = await gateway();
    for (const path of ['/api/v1/customers', '/api/v1/events']) {
      const json = path.endsWith('events') ? { event_type: 'customer.created', external_event_id: 'e', payload: {} } : body;
      const r = await call(base, path, { key: bed.org.test_key, method: 'POST', json, headers: { 'idempotency-key': 'x'.repeat(256) } });
      expect({ path, status: r.status }).toEqual({ path, status: 400 });
    }
    expect(received).toHaveLength(0);
  });

  it('forwards the key of a route with its own dedupe (POST /events) instead of replaying', async () => {
    const { base } = await gateway();
    const json = { event_type: 'customer.created', external_event_id: 'e-own', payload: {} };
    const headers = { 'idempotency-key': 'own-1' };
    await call(base, '/api/v1/events', { key: bed.org.test_key, method: 'POST', json, headers });
    const second = await call(base, '/api/v1/events', { key: bed.org.test_key, method: 'POST', json, headers });
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(received).toHaveLength(2);
    expect(received[1]?.ctx.idempotencyKey).toBe('own-1');
  });
});
