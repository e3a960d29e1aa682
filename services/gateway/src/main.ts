import type { AddressInfo } from 'node:net';
import { RpcClient, reportListening, runMain, startRuntime } from '@acct/kit';
import { createGatewayApp } from './app';
import { createGatewayServer } from './server';
import { renderOpenApiYaml } from './openapi';
import { loadGatewayConfig } from './config';
import { openGatewayOrm } from './db';
import { IdempotencyStore } from './idempotency';
import { KeyStore } from './key-store';
import { createGatewayMetrics } from './metrics';
import { TokenBuckets } from './rate-limit';
import { BucketSync } from './shared-buckets';
import { purgeAudit } from './dashboard/audit-log';
import { sessionResolver, signedIn } from './dashboard/sessions';
import { dashboardV1Deps } from './dashboard/v1';
import { startGatewayOutbox } from './events-outbox';

const PURGE_EVERY_MS = 10 * 60 * 1000;

runMain(async () => {
  const config = loadGatewayConfig();
  const metrics = createGatewayMetrics();
  // Ready only once the public port listens (a green /readyz must mean requests are taken).
  let listening = false;
  const rt = await startRuntime({ name: 'gateway', config, metrics, openOrm: openGatewayOrm, checks: { http: () => Promise.resolve(listening) } });
  // A request holds its key at most for the RPC timeout plus its own database round trips.
  const idempotency = new IdempotencyStore(rt.orm, config.IDEMPOTENCY_TTL_SECONDS, Math.ceil((2 * config.RPC_TIMEOUT_MS) / 1000) + 5);
  const buckets = new TokenBuckets(config.RATE_LIMIT_RPS, config.RATE_LIMIT_BURST);
  const clientBuckets = new TokenBuckets(config.RATE_LIMIT_CLIENT_RPS, config.RATE_LIMIT_CLIENT_BURST);
  // One budget per key and per address across the replicas (see shared-buckets.ts for the slack).
  const syncOf = (name: string, b: TokenBuckets) =>
    new BucketSync({ orm: rt.orm, name, buckets: b, intervalMs: config.RATE_LIMIT_SYNC_MS, log: rt.log, errors: metrics.rateLimitStoreErrors });
  const syncs = config.RATE_LIMIT_SYNC_MS > 0 ? [syncOf('key', buckets), syncOf('address', clientBuckets)] : [];
  for (const s of syncs) s.start();
  const rpc = new RpcClient(rt.nc, config.NATS_PREFIX, config.RPC_TIMEOUT_MS, metrics, rt.log, true);
  // api_key.revoked (dashboard, admin CLI): this process's relay publishes the gateway's outbox.
  const outbox = await startGatewayOutbox(rt, config, metrics);
  const { app } = createGatewayApp({
    keys: new KeyStore(rt.orm, config.AUTH_CACHE_TTL_MS, metrics, rt.log),
    idempotency,
    rpc,
    uploadMaxBytes: config.UPLOAD_MAX_BYTES,
    ...(config.UPLOAD_SPOOL_DIR ? { uploadSpoolDir: config.UPLOAD_SPOOL_DIR } : {}),
    storageTimeoutMs: config.STORAGE_TIMEOUT_MS,
    log: rt.log,
    metrics,
    buckets,
    clientBuckets,
    trustedProxies: config.GATEWAY_TRUSTED_PROXIES,
    moduleEnforcement: config.MODULE_ENFORCEMENT,
    openapiYaml: renderOpenApiYaml(),
    // The dashboard: its own API (sessions, members, invitations, passkeys) and the public API for its members.
    dashboardApi: { orm: rt.orm, ...(config.DASHBOARD_ORIGIN ? { dashboardUrl: `${config.DASHBOARD_ORIGIN}/dashboard`, dashboardOrigin: config.DASHBOARD_ORIGIN } : {}) },
    dashboard: dashboardV1Deps(rt.orm, signedIn(sessionResolver(rt.orm)), config.AUTH_CACHE_TTL_MS),
  });
  const server = createGatewayServer(app, { requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS, headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.GATEWAY_PORT, config.GATEWAY_HOST, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  reportListening('http', port);
  listening = true;
  const purge = setInterval(() => {
    idempotency.purgeExpired().catch((err) => rt.log.warn({ err }, 'idempotency purge failed'));
    // The audit log is kept a year: older rows go in bounded batches.
    purgeAudit(rt.orm.em.fork()).catch((err) => rt.log.warn({ err }, 'audit log purge failed'));
  }, PURGE_EVERY_MS);
  purge.unref();
  rt.onShutdown([
    {
      name: 'http',
      // /readyz is 503 already (the runtime's first step). Every response now closes its connection;
      // after the grace the port closes, idle keep-alive connections with it, and requests in
      // flight finish (cut only if they outlast the shutdown timeout, less 2 s for the steps after).
      run: async () => {
        clearInterval(purge);
        const forceAfterMs = Math.max(0, config.SHUTDOWN_TIMEOUT_MS - config.HTTP_DRAIN_GRACE_MS - 2000);
        const drained = await server.drain({ graceMs: config.HTTP_DRAIN_GRACE_MS, forceAfterMs });
        rt.log.info({ drain_ms: drained.ms, cut: drained.cut }, drained.cut ? 'http drained; requests still running were cut' : 'http drained');
        await Promise.all(syncs.map((s) => s.stop()));
      },
    },
    { name: 'outbox', run: () => outbox.stopRelay() },
  ]);
  rt.log.info({ port, ops_port: rt.ops.port }, 'gateway listening');
});
