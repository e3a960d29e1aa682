import { randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { StorageType, connect, headers as natsHeaders, type NatsConnection } from 'nats';
import { AppError, type RpcOperation, type RpcRequest, operationsOf, rpcSubject } from '@acct/contracts';
import { NATS_URL, silentLogger, uniquePrefix } from '@acct/testing';
import { INFLATED_BYTES_MAX, encodeJson } from './payloads';
import { publishToStream } from './requester';
import { RpcClient, RpcServer } from './rpc';
import { createMetrics } from './metrics';

/**
 * These tests are about the transport, so they send and answer arbitrary bodies: calls and handlers
 * name their operation as RpcOperation (untyped) instead of one catalogue entry, and the servers
 * do not check requests against the operations' schemas (checkRequests: false) except where a
 * test says so.
 */
const req = (body: unknown = {}): RpcRequest => ({
  ctx: { organizationId: 'o', connectedAppId: 'a', environment: 'test', apiKeyId: 'k', requestId: 'r' },
  params: {},
  query: {},
  body,
});

describe('RPC over real NATS', () => {
  let nc: NatsConnection;
  let prefix: string;
  const servers: RpcServer[] = [];

  beforeEach(async () => {
    nc = await connect({ servers: NATS_URL });
    prefix = uniquePrefix();
  });

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.drain()));
    await nc.drain();
  });

  function serve(handlers: Partial<Record<RpcOperation, (r: RpcRequest) => Promise<any>>>, checkRequests = false): RpcServer {
    const s = new RpcServer(nc, prefix, 'receivables', silentLogger(), createMetrics('receivables', false), { checkRequests });
    const fallback = async () => ({ ok: true as const, status: 200 as const, body: {} });
    for (const op of operationsOf('receivables')) s.handle(op, (handlers[op] ?? fallback) as never); // one fake for keyed and public operations alike
    s.start();
    servers.push(s);
    return s;
  }

  it('checks requests against their operation by default: a hand-made one gets 400 and never reaches its handler', async () => {
    let served = 0;
    serve(
      {
        'customers.get': async () => {
          served++;
          return { ok: true, status: 200, body: {} };
        },
      },
      true,
    );
    const client = new RpcClient(nc, prefix, 2000);
    const bad = await client.call<RpcOperation>('customers.get', { ...req(), params: { id: 'urn:uuid:00000000-0000-4000-8000-000000000000' } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'validation_failed', details: [{ field: 'ctx.organizationId' }] } });
    const good = {
      ctx: { organizationId: '00000000-0000-4000-8000-000000000001', connectedAppId: 'a', environment: 'test' as const, apiKeyId: 'k', requestId: 'r' },
      params: { id: '00000000-0000-4000-8000-00000000000A' },
      query: {},
      body: {},
    };
    expect(await client.call<RpcOperation>('customers.get', { ...good, params: { id: 'urn:uuid:x' } })).toMatchObject({
      ok: false,
      error: { code: 'validation_failed', details: [{ field: 'id' }] },
    });
    expect(served).toBe(0);
    expect(await client.call<RpcOperation>('customers.get', good)).toMatchObject({ ok: true });
    expect(served).toBe(1);
  });

  it('carries the request and returns the reply', async () => {
    serve({ 'customers.get': async (r) => ({ ok: true, status: 200, body: { echo: r.body, org: r.ctx.organizationId } }) });
    const reply = await new RpcClient(nc, prefix, 2000).call<RpcOperation>('customers.get', req({ x: 1 }));
    expect(reply).toEqual({ ok: true, status: 200, body: { echo: { x: 1 }, org: 'o' } });
  });

  it('turns an AppError into an error reply and anything else into internal_error', async () => {
    serve({
      'customers.get': async () => {
        throw AppError.notFound('Customer', 'x');
      },
      'customers.list': async () => {
        throw new Error('db password=hunter2 leaked?');
      },
    });
    const client = new RpcClient(nc, prefix, 2000);
    const a = await client.call<RpcOperation>('customers.get', req());
    expect(a).toEqual({ ok: false, error: { code: 'not_found', message: 'Customer x was not found.', details: [] } });
    const b = await client.call<RpcOperation>('customers.list', req());
    expect(b.ok).toBe(false);
    if (!b.ok) {
      expect(b.error.code).toBe('internal_error');
      expect(JSON.stringify(b)).not.toContain('hunter2');
    }
  });

  // The client would wait 60 s for a reply; the test gives up after 10 s: only NATS's no-responders
  // status (sent at once for a subject no one subscribes to) can answer within it.
  it('answers service_unavailable at once when no instance serves the subject, not after the timeout', async () => {
    const client = new RpcClient(nc, prefix, 60_000);
    expect(await client.call<RpcOperation>('customers.get', req())).toEqual({
      ok: false,
      error: { code: 'service_unavailable', message: 'The customers service is unavailable: no instance is running. Retry later.', details: [] },
    });
    // Nor once a replica that served it has gone (its subscription removed).
    const s = serve({});
    expect((await client.call<RpcOperation>('customers.get', req())).ok).toBe(true);
    await s.drain();
    expect(await client.call<RpcOperation>('customers.get', req())).toMatchObject({ ok: false, error: { message: expect.stringMatching(/no instance is running/) } });
  }, 10_000);

  it('answers service_unavailable when the service does not answer in time', async () => {
    // A responder that takes the message and never replies.
    const sub = nc.subscribe(rpcSubject(prefix, 'customers.get'), { callback: () => undefined });
    const reply = await new RpcClient(nc, prefix, 200).call<RpcOperation>('customers.get', req());
    sub.unsubscribe();
    expect(reply.ok).toBe(false);
    if (!reply.ok) expect(reply.error.code).toBe('service_unavailable');
  });

  // The client would wait 60 s; the test gives up after 10 s: only the closing connection can answer within it.
  it('answers service_unavailable at once when the connection closes under a waiting request', async () => {
    let arrived!: () => void;
    const requested = new Promise<void>((r) => (arrived = r));
    // A responder that takes the request (telling the test) and never replies.
    const sub = nc.subscribe(rpcSubject(prefix, 'customers.get'), { callback: () => arrived() });
    await nc.flush();
    const own = await connect({ servers: NATS_URL });
    const pending = new RpcClient(own, prefix, 60_000).call<RpcOperation>('customers.get', req());
    await requested; // the request is out and waiting for its reply
    await own.close();
    const reply = await pending;
    sub.unsubscribe();
    expect(reply).toMatchObject({ ok: false, error: { code: 'service_unavailable', message: expect.stringMatching(/the message bus is unreachable/) } });
  }, 10_000);

  it('keeps concurrent calls apart on one connection, from several clients', async () => {
    serve({ 'customers.get': async (r) => ({ ok: true, status: 200, body: { n: (r.body as { n: number }).n } }) });
    const clients = [new RpcClient(nc, prefix, 2000), new RpcClient(nc, prefix, 2000)];
    const replies = await Promise.all(Array.from({ length: 50 }, (_, n) => clients[n % 2]!.call<RpcOperation>('customers.get', req({ n }))));
    expect(replies.map((r) => (r.ok ? (r.body as { n: number }).n : -1))).toEqual(Array.from({ length: 50 }, (_, n) => n));
  });

  it('delivers each request to exactly one replica of the queue group', async () => {
    const seen: string[] = [];
    const h = (name: string) => async () => {
      seen.push(name);
      return { ok: true as const, status: 200 as const, body: { by: name } };
    };
    serve({ 'customers.get': h('a') });
    serve({ 'customers.get': h('b') });
    const client = new RpcClient(nc, prefix, 2000);
    await Promise.all(Array.from({ length: 40 }, () => client.call<RpcOperation>('customers.get', req())));
    expect(seen).toHaveLength(40);
  });

  it('drain lets a request in flight finish and reply', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const handling = new Promise<void>((r) => (entered = r));
    const s = serve({
      'customers.get': async () => {
        entered();
        await gate;
        return { ok: true, status: 200, body: { finished: true } };
      },
    });
    const pending = new RpcClient(nc, prefix, 5000).call<RpcOperation>('customers.get', req());
    await handling; // the request arrived and its handler runs
    expect(s.inflightCount).toBe(1);
    const drained = s.drain();
    release();
    await drained;
    expect(await pending).toEqual({ ok: true, status: 200, body: { finished: true } });
  });

  it('refuses to start without a handler for every operation of the service', () => {
    const s = new RpcServer(nc, prefix, 'receivables', silentLogger());
    s.handle<RpcOperation>('customers.get', async () => ({ ok: true, status: 200, body: {} }));
    expect(() => s.start()).toThrow(/no handler for customers.create, customers.list, customers.update, invoices.create/);
  });

  it('carries requests and replies larger than the bus message limit deflated', async () => {
    const max = nc.info!.max_payload;
    const big = 'é€'.repeat(Math.ceil((2.5 * max) / 5)); // ~2.5 × max_payload of UTF-8
    let deflatedIn = false;
    const s = serve({ 'customers.create': async (r) => ({ ok: true, status: 201, body: { got: (r.body as { s: string }).s.length, back: (r.body as { s: string }).s } }) });
    const sub = nc.subscribe(rpcSubject(prefix, 'customers.create'), {
      callback: (_e, m) => (deflatedIn = m.headers?.get('Content-Encoding') === 'deflate' && m.data.length < max),
    });
    const client = new RpcClient(nc, prefix, 5000);
    const reply = await client.call<RpcOperation>('customers.create', req({ s: big }));
    sub.unsubscribe();
    expect(reply.ok).toBe(true);
    expect(reply.ok && reply.body).toEqual({ got: big.length, back: big });
    expect(deflatedIn).toBe(true);
    expect(s.inflightCount).toBe(0);
  });

  it('answers 500 for a reply and 400 for a request still over the limit deflated, and keeps serving', async () => {
    const noise = () => randomBytes(Math.ceil(2.5 * nc.info!.max_payload)).toString('base64'); // text that deflates to ~3/4
    serve({ 'customers.get': async () => ({ ok: true, status: 200, body: { noise: noise() } }) });
    const client = new RpcClient(nc, prefix, 5000);
    expect(await client.call<RpcOperation>('customers.get', req())).toEqual({ ok: false, error: { code: 'internal_error', message: 'The reply could not be sent.', details: [] } });
    expect(await client.call<RpcOperation>('customers.create', req({ s: noise() }))).toEqual({
      ok: false,
      error: { code: 'validation_failed', message: 'The request is too large to forward, even compressed; send a smaller body.', details: [] },
    });
    expect((await client.call<RpcOperation>('customers.create', req())).ok).toBe(true);
  });

  it('answers a hand-made request that is not JSON, does not inflate or inflates past the limit with 400, and keeps serving', async () => {
    serve({});
    const subject = rpcSubject(prefix, 'customers.create');
    const deflated = natsHeaders();
    deflated.set('Content-Encoding', 'deflate');
    const sent = [
      await nc.request(subject, new TextEncoder().encode('{not json')),
      await nc.request(subject, randomBytes(64), { headers: deflated, timeout: 5000 }),
      await nc.request(subject, deflateRawSync(Buffer.alloc(INFLATED_BYTES_MAX + 1)), { headers: deflated, timeout: 5000 }),
    ].map((m) => m.json<{ ok: boolean; error?: { code: string; details: { issue: string }[] } }>());
    expect(sent.map((r) => [r.ok, r.error?.code, r.error?.details[0]?.issue])).toEqual([
      [false, 'validation_failed', 'malformed_json'],
      [false, 'validation_failed', 'malformed_encoding'],
      [false, 'validation_failed', 'malformed_encoding'],
    ]);
    expect((await new RpcClient(nc, prefix, 5000).call<RpcOperation>('customers.create', req())).ok).toBe(true);
  });

  it('answers an error instead of dying when a reply cannot be sent, and keeps serving', async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    serve({
      'customers.get': async () => ({ ok: true, status: 200, body: circular }),
      'customers.list': async () => ({ ok: true, status: 200, body: { big: 1n } }),
    });
    const client = new RpcClient(nc, prefix, 2000);
    for (const op of ['customers.get', 'customers.list'] as RpcOperation[]) {
      expect(await client.call<RpcOperation>(op, req())).toEqual({ ok: false, error: { code: 'internal_error', message: 'The reply could not be sent.', details: [] } });
    }
    expect((await client.call<RpcOperation>('customers.create', req())).ok).toBe(true);
  });
});

describe('publishToStream', () => {
  it('is acked by the stream, dropped by message id as a duplicate, and refused where no stream takes the subject', async () => {
    const nc = await connect({ servers: NATS_URL });
    const prefix = uniquePrefix();
    const stream = `S_${prefix.replace(/[^A-Za-z0-9]/g, '_')}`;
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: stream, subjects: [`${prefix}.s.>`], storage: StorageType.Memory, duplicate_window: 60_000_000_000 });
    try {
      const first = await publishToStream(nc, `${prefix}.s.a`, encodeJson({ n: 1 }), { msgID: 'm-1' });
      expect(first).toEqual({ stream, seq: 1, duplicate: false });
      const h = natsHeaders();
      h.set('Content-Type', 'application/json');
      const second = await publishToStream(nc, `${prefix}.s.b`, encodeJson({ n: 2 }), { msgID: 'm-2', headers: h });
      expect(second).toEqual({ stream, seq: 2, duplicate: false });
      expect(await publishToStream(nc, `${prefix}.s.a`, encodeJson({ n: 1 }), { msgID: 'm-1' })).toEqual({ stream, seq: 1, duplicate: true });
      const stored = await jsm.streams.getMessage(stream, { seq: 2 });
      expect([stored.subject, stored.header.get('Nats-Msg-Id'), stored.header.get('Content-Type'), stored.json()]).toEqual([`${prefix}.s.b`, 'm-2', 'application/json', { n: 2 }]);
      expect((await jsm.streams.info(stream)).state.messages).toBe(2);
      await expect(publishToStream(nc, `${prefix}.nostream`, encodeJson({}), { msgID: 'm-3', timeoutMs: 2000 })).rejects.toThrow(/no instance is running/);
      // A stream that refuses the message (here: it expects another last sequence) answers with its error.
      const wrong = natsHeaders();
      wrong.set('Nats-Expected-Last-Sequence', '99');
      await expect(publishToStream(nc, `${prefix}.s.c`, encodeJson({}), { msgID: 'm-4', headers: wrong })).rejects.toThrow(/refused.*wrong last sequence/i);
      expect((await jsm.streams.info(stream)).state.messages).toBe(2);
    } finally {
      await jsm.streams.delete(stream);
      await nc.drain();
    }
  });
});
