/**
 * The bed of the gateway's integration tests: real Postgres (its own database, two bootstrapped
 * organizations) and NATS (its own prefix), a fake receivables service answering every operation
 * (recording what it received), and gateways built on them on demand.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type NatsConnection } from 'nats';
import { operationsOf, type RpcRequest } from '@acct/contracts';
import { RpcClient, RpcServer, migrate, type Orm } from '@acct/kit';
import { NATS_URL, freshDatabase, silentLogger, uniquePrefix, type TestDatabase } from '@acct/testing';
import { bootstrap, type Bootstrap } from '../admin/admin';
import { createGatewayApp } from '../app';
import { openGatewayOrm } from '../db';
import { IdempotencyStore } from '../idempotency';
import { KeyStore } from '../key-store';
import { createGatewayMetrics, type GatewayMetrics } from '../metrics';
import { renderOpenApiYaml } from '../openapi';
import { TokenBuckets } from '../rate-limit';

export type Handler = (r: RpcRequest) => Promise<any>;

/** What a gateway of the bed is built with, beside the defaults (everything generous, soft modules). */
export type GatewayOptions = Partial<{
  rps: number;
  burst: number;
  clientRps: number;
  clientBurst: number;
  enforcement: 'soft' | 'hard';
  ttlMs: number;
  timeoutMs: number;
  orm: Orm;
  idempotency: IdempotencyStore;
}>;

export interface GatewayBed {
  /** Two organizations of the bed's database (set in beforeAll). */
  org: Bootstrap;
  other: Bootstrap;
  orm: Orm;
  /** What the fake receivables service received in this test. */
  received: RpcRequest[];
  /** The fake's answer per operation, reset before each test. */
  handlers: Record<string, Handler>;
  startFake: () => void;
  /** Stops the fake service (the gateway then finds no responder). */
  stopFake: () => Promise<void>;
  gateway: (over?: GatewayOptions) => Promise<{ base: string; router: ReturnType<typeof createGatewayApp>['router']; metrics: GatewayMetrics }>;
  call: (base: string, path: string, init?: RequestInit & { key?: string; json?: unknown }) => Promise<Response>;
}

const defaultHandlers = (): Record<string, Handler> => ({
  'customers.create': async (r) => ({ ok: true, status: 201, body: { data: { id: 'c1', body: r.body }, customer: { id: 'c1' } } }),
  'customers.list': async (r) => ({ ok: true, status: 200, body: { data: [], customers: [], pagination: { ...r.query, count: 0, has_more: false } } }),
  'customers.get': async (r) => ({ ok: true, status: 200, body: { data: { id: r.params.id }, customer: { id: r.params.id } } }),
});

/** Registers the bed's hooks in the calling describe and returns it. */
export function gatewayBed(): GatewayBed {
  let db: TestDatabase;
  let nc: NatsConnection;
  let prefix: string;
  let fake: RpcServer | undefined;
  const gateways: http.Server[] = [];

  const bed: GatewayBed = {
    org: undefined as unknown as Bootstrap,
    other: undefined as unknown as Bootstrap,
    orm: undefined as unknown as Orm,
    received: [],
    handlers: {},
    startFake: () => {
      fake = new RpcServer(nc, prefix, 'receivables', silentLogger());
      for (const op of operationsOf('receivables')) {
        fake.handle(op, async (r) => {
          bed.received.push(r as RpcRequest);
          return (bed.handlers[op] ?? (async () => ({ ok: true, status: 200, body: {} })))(r as RpcRequest);
        });
      }
      fake.start();
    },
    stopFake: async () => {
      await fake?.drain();
      fake = undefined;
    },
    gateway: async (over = {}) => {
      const metrics: GatewayMetrics = createGatewayMetrics(false);
      const { app, router } = createGatewayApp({
        keys: new KeyStore(over.orm ?? bed.orm, over.ttlMs ?? 200, metrics),
        idempotency: over.idempotency ?? new IdempotencyStore(over.orm ?? bed.orm, 3600),
        rpc: new RpcClient(nc, prefix, over.timeoutMs ?? 2000, metrics, undefined, true),
        log: silentLogger(),
        metrics,
        buckets: new TokenBuckets(over.rps ?? 1000, over.burst ?? 1000),
        clientBuckets: new TokenBuckets(over.clientRps ?? 1000, over.clientBurst ?? 1000),
        moduleEnforcement: over.enforcement ?? 'soft',
        openapiYaml: renderOpenApiYaml(),
      });
      const handler = app.callback();
      const server = http.createServer((req, res) => void handler(req, res));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      gateways.push(server);
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      return { base, router, metrics };
    },
    call: (base, path, init = {}) => {
      const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
      if (init.key) headers.authorization = `Bearer ${init.key}`;
      let body = init.body;
      if (init.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(init.json);
      }
      return fetch(`${base}${path}`, { ...init, headers, body });
    },
  };

  beforeAll(async () => {
    db = await freshDatabase('acct_gw_it');
    bed.orm = await openGatewayOrm(db.url, 5);
    await migrate(bed.orm);
    bed.org = await bootstrap(bed.orm.em.fork(), 'Org A');
    bed.other = await bootstrap(bed.orm.em.fork(), 'Org B');
    nc = await connect({ servers: NATS_URL });
    prefix = uniquePrefix();
  });

  beforeEach(() => {
    bed.received.length = 0;
    bed.handlers = defaultHandlers();
    bed.startFake();
  });

  afterEach(() => bed.stopFake());

  afterAll(async () => {
    await Promise.all(gateways.map((s) => new Promise((r) => s.close(r))));
    await nc.drain();
    await bed.orm.close(true);
    await db.drop();
  });

  return bed;
}
