import { randomBytes, randomUUID } from 'node:crypto';
import { type RpcReply, type RpcRequest, type TrustedContext, compileBody, schemas } from '@acct/contracts';
import { type TestService, ctx, firstRow, startServiceForTest } from '@acct/testing';
import { receivablesService } from './service';

const validCustomer = compileBody(schemas.customers.customerResponse);
const validList = compileBody(schemas.customers.customerListResponse);
/** The reply body without the status fields the test helper adds. */
const bodyOf = ({ status: _s, replayed: _r, ...body }: { status: number; replayed?: boolean }) => body;
const receivables = () => receivablesService({ config: { processorSecretKey: randomBytes(32) } });

describe('receivables: customers against real Postgres and NATS', () => {
  let svc: TestService;

  /** A request with empty params, query and body unless given; client.call checks it against the operation. */
  const rq = <B = Record<string, never>, P = Record<string, never>, Q = Record<string, never>>(
    c: TrustedContext,
    over: Partial<RpcRequest<B, P, Q>> = {},
  ): RpcRequest<B, P, Q> => ({ ctx: c, params: {} as P, query: {} as Q, body: {} as B, ...over });
  const ok = <T = any>(r: RpcReply): T & { status: number; replayed?: boolean } => {
    if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
    return { ...(r.body as T), status: r.status, replayed: r.replayed };
  };

  beforeAll(async () => {
    svc = await startServiceForTest(receivables());
  });

  afterAll(() => svc.stop());

  it('creates (201), replays the same content (200, replayed) and refuses different content (409)', async () => {
    const c = ctx();
    const body = { external_customer_id: 'ext-1', name: 'Ada Lovelace', email: 'ada@example.com' };
    const created = ok(await svc.client.call('customers.create', rq(c, { body })));
    expect(created.status).toBe(201);
    expect(validCustomer(bodyOf(created))).toBe(true);
    expect(created.data).toMatchObject({ external_customer_id: 'ext-1', name: 'Ada Lovelace', email: 'ada@example.com', status: 'active' });

    const replay = ok(await svc.client.call('customers.create', rq(c, { body })));
    expect(replay.status).toBe(200);
    expect(replay.replayed).toBe(true);
    expect(replay.data).toEqual(created.data);

    const conflict = await svc.client.call('customers.create', rq(c, { body: { ...body, name: 'Someone else' } }));
    expect(conflict.ok).toBe(false);
    if (!conflict.ok) {
      expect(conflict.error.code).toBe('conflict');
      expect(conflict.error.details[0]).toMatchObject({ field: '/external_customer_id', issue: 'already_used' });
    }
  });

  it('creates exactly one customer when retries of one external id race', async () => {
    const c = ctx();
    const body = { external_customer_id: 'race', name: 'Racer' };
    const replies = await Promise.all(Array.from({ length: 12 }, () => svc.client.call('customers.create', rq(c, { body }))));
    const statuses = replies.map((r) => ok(r).status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(11);
    expect(new Set(replies.map((r) => ok(r).data.id)).size).toBe(1);
    const { n } = firstRow(await svc.sql(`SELECT count(*)::int AS n FROM customers WHERE organization_id = ?`, [c.organizationId]));
    expect(n).toBe(1);
  });

  it('lists newest first with limit/offset and has_more', async () => {
    const c = ctx();
    for (let i = 1; i <= 5; i++) {
      ok(await svc.client.call('customers.create', rq(c, { body: { external_customer_id: `l-${i}`, name: `C${i}` } })));
    }
    const p1 = ok(await svc.client.call('customers.list', rq(c, { query: { limit: 2, offset: 0 } })));
    expect(validList(bodyOf(p1))).toBe(true);
    expect(p1.data.map((x: { name: string }) => x.name)).toEqual(['C5', 'C4']);
    expect(p1.pagination).toEqual({ limit: 2, offset: 0, count: 2, has_more: true });
    expect(p1.customers).toEqual(p1.data);
    const p3 = ok(await svc.client.call('customers.list', rq(c, { query: { limit: 2, offset: 4 } })));
    expect(p3.data.map((x: { name: string }) => x.name)).toEqual(['C1']);
    expect(p3.pagination).toEqual({ limit: 2, offset: 4, count: 1, has_more: false });
  });

  it('never lets one organization or environment see another one', async () => {
    const a = ctx();
    const created = ok(await svc.client.call('customers.create', rq(a, { body: { external_customer_id: 'iso', name: 'Isolated' } })));
    const id = created.data.id;
    expect(ok(await svc.client.call('customers.get', rq(a, { params: { id } }))).data.id).toBe(id);

    for (const intruder of [ctx(), ctx({ organizationId: a.organizationId, environment: 'live' })]) {
      const r = await svc.client.call('customers.get', rq(intruder, { params: { id } }));
      expect(r.ok ? 'ok' : r.error.code).toBe('not_found');
      expect(ok(await svc.client.call('customers.list', rq(intruder, { query: { limit: 25, offset: 0 } }))).data).toEqual([]);
    }
    // The same external id is free in the other environment: ids are unique per org + environment.
    const live = ok(
      await svc.client.call('customers.create', rq(ctx({ organizationId: a.organizationId, environment: 'live' }), { body: { external_customer_id: 'iso', name: 'Other' } })),
    );
    expect(live.status).toBe(201);
    expect(live.data.id).not.toBe(id);
  });

  it('answers service_unavailable, not internal_error, when its database is gone', async () => {
    const gone = await startServiceForTest(receivables(), { nc: svc.nc, poolMax: 2 });
    try {
      expect((await gone.call('customers.list', ctx(), { query: { limit: 25, offset: 0 } })).ok).toBe(true);
      await gone.db.drop(); // WITH (FORCE): open connections are terminated
      const r = await gone.call('customers.list', ctx(), { query: { limit: 25, offset: 0 } });
      expect(r.ok ? 'ok' : r.error.code).toBe('service_unavailable');
    } finally {
      await gone.stop().catch(() => undefined);
    }
  });

  it('answers not_found for an unknown id', async () => {
    const r = await svc.client.call('customers.get', rq(ctx(), { params: { id: randomUUID() } }));
    expect(r.ok ? 'ok' : r.error.code).toBe('not_found');
  });
});
