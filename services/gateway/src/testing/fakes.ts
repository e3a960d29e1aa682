/** Small in-memory stand-ins for the gateway's stores and the NATS client, for unit tests only. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Koa from 'koa';
import pino from 'pino';
import type { RpcOperation, RpcReply, RpcReplyOf, RpcRequest, RpcRequestOf } from '@acct/contracts';
import type { GatewayDeps } from '../app';
import type { Begin } from '../idempotency';
import type { Principal } from '../key-store';
import { createGatewayMetrics, type GatewayMetrics } from '../metrics';
import type { KeyResolver } from '../middlewares/authenticate';
import { errors } from '../middlewares/errors';
import type { RpcCaller } from '../middlewares/forward';
import type { IdempotencyRecords } from '../middlewares/idempotency';
import type { Middleware } from '../middlewares/state';
import { TokenBuckets } from '../rate-limit';

export const TEST_KEY = `svc_test_${'a'.repeat(40)}`;

export function principal(over: Partial<Principal> = {}): Principal {
  return {
    apiKeyId: 'key-1',
    organizationId: 'org-1',
    connectedAppId: 'app-1',
    environment: 'test',
    revoked: false,
    expiresAt: null,
    appActive: true,
    enabledModules: new Set(['customers']),
    ...over,
  };
}

/** Resolves the keys it is given; every other key is unknown. */
export function fakeKeys(byKey: Record<string, Principal>): KeyResolver & { resolved: string[] } {
  const resolved: string[] = [];
  return {
    resolved,
    resolve: async (key) => {
      resolved.push(key);
      return byKey[key] ?? null;
    },
  };
}

/** Idempotency-Key records in a Map, with the store's proceed / replay / mismatch / in-flight answers. */
export function fakeIdempotency(): IdempotencyRecords & {
  records: Map<string, { fp: string; status?: number; headers?: Record<string, string>; body?: string }>;
} {
  const records = new Map<string, { fp: string; status?: number; headers?: Record<string, string>; body?: string }>();
  return {
    records,
    begin: async (apiKeyId, key, fp): Promise<Begin> => {
      const r = records.get(`${apiKeyId}/${key}`);
      if (!r) {
        records.set(`${apiKeyId}/${key}`, { fp });
        return { kind: 'proceed' };
      }
      if (r.fp !== fp) return { kind: 'mismatch' };
      if (r.status === undefined) return { kind: 'in_flight' };
      return { kind: 'replay', status: r.status, headers: r.headers ?? {}, body: r.body ?? 'null' };
    },
    complete: async (apiKeyId, key, status, headers, body) => {
      const r = records.get(`${apiKeyId}/${key}`)!;
      Object.assign(r, { status, headers, body });
    },
    release: async (apiKeyId, key) => {
      records.delete(`${apiKeyId}/${key}`);
    },
  };
}

/** Answers every call with `answer` and keeps what it was asked. */
export function fakeRpc(answer: (op: RpcOperation, req: RpcRequest) => RpcReply | Promise<RpcReply>): RpcCaller & {
  calls: Array<{ op: RpcOperation; req: RpcRequest }>;
} {
  const calls: Array<{ op: RpcOperation; req: RpcRequest }> = [];
  return {
    calls,
    call: async <K extends RpcOperation>(op: K, req: RpcRequestOf<K>) => {
      calls.push({ op, req: req as RpcRequest });
      return (await answer(op, req as RpcRequest)) as RpcReplyOf<K>;
    },
  };
}

export const silentLog = () => pino({ level: 'silent' });

/** A pino logger at `level` whose lines land, parsed, in `lines`. */
export function capturedLog(level: pino.Level): { log: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { log: pino({ level }, sink), lines };
}
export const testMetrics = (): GatewayMetrics => createGatewayMetrics(false);

/** What createGatewayApp needs, all fakes: TEST_KEY is known, generous limits, every RPC answers 200 {}. */
export function fakeGatewayDeps(over: Partial<GatewayDeps> = {}): GatewayDeps {
  return {
    keys: fakeKeys({ [TEST_KEY]: principal() }),
    idempotency: fakeIdempotency(),
    rpc: fakeRpc(() => ({ ok: true, status: 200, body: {} })),
    log: silentLog(),
    metrics: testMetrics(),
    buckets: new TokenBuckets(1000, 1000),
    clientBuckets: new TokenBuckets(1000, 1000),
    moduleEnforcement: 'soft',
    openapiYaml: 'openapi: 3.1.0\n',
    ...over,
  };
}

/**
 * A Koa app of just the given middlewares behind a fixed request id and the error envelope, as
 * the gateway puts them: what a middleware throws comes back as the envelope.
 */
export function appOf(...mws: Middleware[]): Koa {
  const app = new Koa();
  app.silent = true;
  app.use(async (ctx: Koa.Context, next: Koa.Next) => {
    ctx.state.requestId = 'req-test';
    ctx.state.log = silentLog();
    await next();
  });
  app.use(errors());
  for (const mw of mws) app.use(mw);
  return app;
}

export interface Served {
  base: string;
  /** fetch against the app, with Bearer auth when `key` is given and a JSON body when `json` is. */
  call: (path: string, init?: RequestInit & { key?: string; json?: unknown }) => Promise<Response>;
  close: () => Promise<void>;
}

/** Listens on an ephemeral port of 127.0.0.1; close() when done. */
export async function serve(app: Koa): Promise<Served> {
  const handler = app.callback();
  const server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    call: (path, init = {}) => {
      const { key, json, ...rest } = init;
      const headers: Record<string, string> = { ...(rest.headers as Record<string, string>) };
      if (key) headers.authorization = `Bearer ${key}`;
      let body = rest.body;
      if (json !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = JSON.stringify(json);
      }
      return fetch(`${base}${path}`, { ...rest, headers, body });
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** fetch's json() is typed unknown; these tests read known shapes. */
export const json = (r: Response): Promise<any> => r.json();

/** Stands in for authentication: the request runs as `p`. */
export function withPrincipal(p: Principal = principal()): Middleware {
  return async (ctx, next) => {
    ctx.state.principal = p;
    await next();
  };
}

/** The value of a counter or gauge for the given labels (0 when never touched). */
export async function valueOf(metric: { get: () => Promise<{ values: Array<{ value: number; labels: object }> }> }, labels: Record<string, string> = {}): Promise<number> {
  const { values } = await metric.get();
  const hit = values.find((v) => Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x));
  return hit?.value ?? 0;
}
