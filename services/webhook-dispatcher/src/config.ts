import { type VarSpec, loadConfig, parseSecretKey, v } from '@acct/kit';
import { DEFAULT_RETRY_SCHEDULE, parseDuration, parseSchedule } from './domain/schedule';

function parsed<T>(def: string | undefined, doc: string, parse: (raw: string) => T): VarSpec<T> {
  return { default: def === undefined ? undefined : parse(def), doc, parse };
}

const webhookConfigSpec = {
  WEBHOOK_SECRET_KEY: parsed(undefined, 'key (64 hex digits, or at least 32 random characters) that encrypts endpoint secrets at rest with AES-256-GCM; required', parseSecretKey),
  WEBHOOK_RETRY_SCHEDULE: parsed(DEFAULT_RETRY_SCHEDULE, 'delays between attempts of a failing delivery, e.g. 1s,2s,3s', parseSchedule),
  WEBHOOK_TIMEOUT_MS: v.int(10_000, 'a delivery must answer within this', 100, 60_000),
  WEBHOOK_CONCURRENCY: v.int(32, 'deliveries in flight per process', 1, 1000),
  WEBHOOK_ENDPOINT_CONCURRENCY: v.int(4, 'deliveries in flight per endpoint and process', 1, 100),
  WEBHOOK_POLL_INTERVAL_MS: v.int(250, 'how often workers look for due deliveries', 10, 60_000),
  WEBHOOK_DISABLE_AFTER: parsed('3d', 'an endpoint whose deliveries all fail for this long is disabled', parseDuration),
  WEBHOOK_ACK_WAIT_MS: v.int(30_000, 'JetStream redelivers an outbound event not acknowledged within this (lower only in tests)', 1000, 600_000),
  WEBHOOK_LEASE_MARGIN_MS: v.int(30_000, 'a claimed delivery is leased for the timeout plus this; after a crash it is due again then (lower only in tests)', 1000, 600_000),
  WEBHOOK_ALLOW_PRIVATE_URLS: v.bool(
    false,
    'true lets endpoint URLs reach loopback, private, link-local and other non-public addresses (local development and tests only; never on a shared deployment)',
  ),
};

export interface WebhookConfig {
  secretKey: Buffer;
  retrySchedule: number[];
  timeoutMs: number;
  concurrency: number;
  endpointConcurrency: number;
  pollIntervalMs: number;
  disableAfterMs: number;
  /** JetStream ack wait of the outbound consumer (default 30 s). */
  ackWaitMs?: number;
  /** A claim leases a delivery for timeoutMs + this (default 30 s). */
  leaseMarginMs?: number;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: endpoints may reach non-public addresses (default false). */
  allowPrivateUrls: boolean;
}

export function loadWebhookConfig(env: NodeJS.ProcessEnv = process.env): WebhookConfig {
  const c = loadConfig(webhookConfigSpec, env);
  return {
    secretKey: c.WEBHOOK_SECRET_KEY,
    retrySchedule: c.WEBHOOK_RETRY_SCHEDULE,
    timeoutMs: c.WEBHOOK_TIMEOUT_MS,
    concurrency: c.WEBHOOK_CONCURRENCY,
    endpointConcurrency: c.WEBHOOK_ENDPOINT_CONCURRENCY,
    pollIntervalMs: c.WEBHOOK_POLL_INTERVAL_MS,
    disableAfterMs: c.WEBHOOK_DISABLE_AFTER,
    ackWaitMs: c.WEBHOOK_ACK_WAIT_MS,
    leaseMarginMs: c.WEBHOOK_LEASE_MARGIN_MS,
    allowPrivateUrls: c.WEBHOOK_ALLOW_PRIVATE_URLS,
  };
}
