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
import type { DashboardV1Deps } from '../dashboard/v1';
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
  /** Serve /dashboard/api/v1 with these (dashboard/v1.ts). */
  dashboard: DashboardV1Deps;
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

/** What the bed's parts share: its database, its NATS connection and prefix, the fake service, the gateways started. */
interface Wires {
  db: TestDatabase;
  nc: NatsConnection;
  prefix: string;
  fake?: RpcServer;
  gateways: http.Server[];
}

/** The fake receivables service: it records each request and answers with the bed's handler of its operation. */
function startFake(bed: GatewayBed, w: Wires): void {
  const fake = new RpcServer(w.nc, w.prefix, 'receivables', silentLogger());
  for (const op of operationsOf('receivables')) {
    fake.handle(op, async (r) => {
      bed.received.push(r as RpcRequest);
      return (bed.handlers[op] ?? (async () => ({ ok: true, status: 200, body: {} })))(r as RpcRequest);
    });
  }
  fake.start();
  w.fake = fake;
}

async function startGateway(bed: GatewayBed, w: Wires, over: GatewayOptions): ReturnType<GatewayBed['gateway']> {
  const metrics: GatewayMetrics = createGatewayMetrics(false);
  const { app, router } = createGatewayApp({
    keys: new KeyStore(over.orm ?? bed.orm, over.ttlMs ?? 200, metrics),
    idempotency: over.idempotency ?? new IdempotencyStore(over.orm ?? bed.orm, 3600),
    rpc: new RpcClient(w.nc, w.prefix, over.timeoutMs ?? 2000, metrics, undefined, true),
    log: silentLogger(),
    metrics,
    buckets: new TokenBuckets(over.rps ?? 1000, over.burst ?? 1000),
    clientBuckets: new TokenBuckets(over.clientRps ?? 1000, over.clientBurst ?? 1000),
    moduleEnforcement: over.enforcement ?? 'soft',
    openapiYaml: renderOpenApiYaml(),
    ...(over.dashboard ? { dashboard: over.dashboard } : {}),
  });
  const handler = app.callback();
  const server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  w.gateways.push(server);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, router, metrics };
}

const call: GatewayBed['call'] = (base, path, init = {}) => {
  const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  let body = init.body;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  return fetch(`${base}${path}`, { ...init, headers, body });
};

function registerHooks(bed: GatewayBed, w: Wires): void {
  beforeAll(async () => {
    w.db = await freshDatabase('acct_gw_it');
    bed.orm = await openGatewayOrm(w.db.url, 5);
    await migrate(bed.orm);
    bed.org = await bootstrap(bed.orm.em.fork(), 'Org A');
    bed.other = await bootstrap(bed.orm.em.fork(), 'Org B');
    w.nc = await connect({ servers: NATS_URL });
    w.prefix = uniquePrefix();
  });

  beforeEach(() => {
    bed.received.length = 0;
    bed.handlers = defaultHandlers();
    bed.startFake();
  });

  afterEach(() => bed.stopFake());

  afterAll(async () => {
    await Promise.all(w.gateways.map((s) => new Promise((r) => s.close(r))));
    await w.nc.drain();
    await bed.orm.close(true);
    await w.db.drop();
  });
}

/** Registers the bed's hooks in the calling describe and returns it. */
export function gatewayBed(): GatewayBed {
  const w = { gateways: [] } as unknown as Wires; // db, nc and prefix are set in beforeAll
  const bed: GatewayBed = {
    org: undefined as unknown as Bootstrap,
    other: undefined as unknown as Bootstrap,
    orm: undefined as unknown as Orm,
    received: [],
    handlers: {},
    startFake: () => startFake(bed, w),
    stopFake: async () => {
      await w.fake?.drain();
      w.fake = undefined;
    },
    gateway: (over = {}) => startGateway(bed, w, over),
    call,
  };
  registerHooks(bed, w);
  return bed;
}
