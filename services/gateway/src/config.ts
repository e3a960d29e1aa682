import { baseConfigSpec, gatewayPortVar, loadConfig, opsPortVar, serviceConfigSpec, v } from '@acct/kit';

export const gatewayConfigSpec = {
  ...baseConfigSpec,
  OPS_PORT: opsPortVar('gateway'),
  GATEWAY_PORT: gatewayPortVar(),
  GATEWAY_HOST: v.str('0.0.0.0', 'address the public port binds to'),
  RATE_LIMIT_RPS: v.int(50, 'per-key token refill rate, requests per second', 1, 1_000_000),
  RATE_LIMIT_BURST: v.int(100, 'per-key bucket size (burst)', 1, 10_000_000),
  RATE_LIMIT_CLIENT_RPS: v.int(200, 'per-client-address token refill rate (before authentication), requests per second', 1, 1_000_000),
  RATE_LIMIT_CLIENT_BURST: v.int(400, 'per-client-address bucket size (burst)', 1, 10_000_000),
  RATE_LIMIT_SYNC_MS: v.int(100, 'how often each replica syncs its rate-limit buckets with the shared ones in Postgres, ms (0: per-replica limits only)', 0, 60_000),
  GATEWAY_TRUSTED_PROXIES: v.int(0, 'proxies in front of the gateway that append X-Forwarded-For (0: use the socket address)', 0, 10),
  MODULE_ENFORCEMENT: v.oneOf(['soft', 'hard'] as const, 'soft', 'soft: Module-Warning header; hard: 403 module_disabled'),
  AUTH_CACHE_TTL_MS: v.int(
    1000,
    'how long a key lookup, known or unknown key, is cached, ms: a revoked key is refused on every replica within this (API-DECISIONS §13 asks 1 s: keep it at most 1000)',
    0,
    300_000,
  ),
  HTTP_REQUEST_TIMEOUT_MS: v.int(30_000, 'a request (headers and body) must arrive within this, ms (408 and close otherwise)', 1000, 600_000),
  HTTP_HEADERS_TIMEOUT_MS: v.int(10_000, 'request headers must arrive within this, ms (at most HTTP_REQUEST_TIMEOUT_MS; 408 and close otherwise)', 1000, 600_000),
  HTTP_DRAIN_GRACE_MS: v.int(
    1000,
    'on SIGTERM, how long the gateway keeps listening (readiness already 503) and answers with Connection: close before it closes idle connections, ms',
    0,
    60_000,
  ),
  UPLOAD_MAX_BYTES: v.int(25 * 1024 * 1024, 'largest document upload, bytes (413 past it); the documents service has the same setting', 1, 5 * 1024 * 1024 * 1024),
  UPLOAD_SPOOL_DIR: v.str('', 'folder where an upload is spooled on its way to storage; empty: the OS temp folder', { min: 0 }),
  STORAGE_TIMEOUT_MS: v.int(
    5000,
    "how long document storage may keep the gateway waiting (connect, an answer, the next bytes of an upload's PUT or a download), ms; past it 503 (a download already under way is cut)",
    100,
    600_000,
  ),
  DASHBOARD_ORIGIN: v.str('', "the dashboard's origin (https://host[:port]): passkeys are bound to it and to its host name; empty: each request's own origin", {
    min: 0,
    pattern: /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/,
  }),
  IDEMPOTENCY_TTL_SECONDS: v.int(86_400, 'how long an Idempotency-Key response is kept', 1, 30 * 86_400),
  // The gateway's outbox (api_key.revoked): its relay and the events stream, as a posting service's.
  ...serviceConfigSpec,
};

export const loadGatewayConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(gatewayConfigSpec, env);
export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;
