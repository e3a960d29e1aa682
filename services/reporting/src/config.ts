import { DEFAULT_ACK_WAIT_MS, loadConfig, v } from '@acct/kit';

/** Read-your-writes bound of a read (freshness): below the gateway's RPC_TIMEOUT_MS, so a lagging projection answers 503, not a timeout. */
export const DEFAULT_FRESHNESS_WAIT_MS = 3000;

export const reportingConfigSpec = {
  REPORTING_FRESHNESS_WAIT_MS: v.int(
    DEFAULT_FRESHNESS_WAIT_MS,
    "a read waits this long for the consumer to apply every event the stream holds, then answers 503 service_unavailable, ms; keep it below the gateway's RPC_TIMEOUT_MS",
    10,
    60_000,
  ),
  REPORTING_ACK_WAIT_MS: v.int(
    DEFAULT_ACK_WAIT_MS,
    'events a replica received and did not acknowledge within this go to another replica (it died); reads wait for them meanwhile, ms (a live replica extends it while it works)',
    1000,
    600_000,
  ),
  REPORTING_REBUILD_TIMEOUT_MS: v.int(
    600_000,
    'a rebuild (npm run admin -- reporting rebuild) fails if the replay has not caught up with the stream within this, ms; the CLI waits as long plus 30 s (each progress message tells it)',
    1000,
    86_400_000,
  ),
};

export interface ReportingConfig {
  /** How long a read waits for the projection to catch up (Freshness). */
  freshnessWaitMs: number;
  /** How long a rebuild waits for the replay to reach the stream's last sequence. */
  rebuildTimeoutMs: number;
  /** The projection consumer's ack wait (EventConsumerOptions.ackWaitMs). */
  ackWaitMs: number;
}

export function loadReportingConfig(env: NodeJS.ProcessEnv = process.env): ReportingConfig {
  const c = loadConfig(reportingConfigSpec, env);
  return { freshnessWaitMs: c.REPORTING_FRESHNESS_WAIT_MS, rebuildTimeoutMs: c.REPORTING_REBUILD_TIMEOUT_MS, ackWaitMs: c.REPORTING_ACK_WAIT_MS };
}
