import { CONSUMERS, LEDGER_CHAIN_TIMEOUT_MS } from '@acct/contracts';
import { RpcClient, type ServiceDefinition, type ServiceWiring } from '@acct/kit';
import { type ReportingConfig, loadReportingConfig } from './config';
import { consumerWorker, projectionConsumer } from './consumers/projection';
import { Freshness } from './flows/freshness';
import type { RebuildTarget } from './flows/rebuild';
import { registerAccountHandlers } from './handlers/accounts.handler';
import { registerJournalEntryHandlers } from './handlers/journal-entries.handler';
import { registerReportHandlers } from './handlers/reports.handler';
import { registerStatementHandlers } from './handlers/statements.handler';
import { registerVerificationHandlers } from './handlers/verification.handler';
import { migrations } from './migrations';
import { adminWorker } from './workers/admin';

/**
 * The reporting service: a durable consumer of the events stream projects journal entries, invoices'
 * and bills' due dates, customers and vendors into its schema; the ledger reads and reports come from it.
 */
export function reportingService(opts: { config?: ReportingConfig } = {}): ServiceDefinition {
  let config = opts.config;
  const cfg = () => (config ??= loadReportingConfig());
  // The consumer and the freshness check of one wiring, shared by its handlers and its workers.
  const states = new WeakMap<ServiceWiring, RebuildTarget>();
  const stateOf = (w: ServiceWiring): RebuildTarget => {
    let s = states.get(w);
    if (!s) {
      const consumer = projectionConsumer(w, { ackWaitMs: cfg().ackWaitMs });
      const fresh = new Freshness(w.nc, w.prefix, CONSUMERS.reportingPostings, { waitMs: cfg().freshnessWaitMs, hurry: (upTo) => consumer.hurry(upTo) });
      states.set(w, (s = { consumer, fresh }));
    }
    return s;
  };
  return {
    name: 'reporting',
    entities: [],
    migrations,
    register(wiring) {
      const reads = { orm: wiring.orm, fresh: stateOf(wiring).fresh };
      registerAccountHandlers(wiring.server, reads);
      registerJournalEntryHandlers(wiring.server, reads);
      registerReportHandlers(wiring.server, reads);
      registerStatementHandlers(wiring.server, reads);
      // Waits for each posting service's chain as long as the chain operations' own timeout (RPC
      // catalogue), less than the gateway waits for the route: a slow one is answered 503 here.
      registerVerificationHandlers(wiring.server, new RpcClient(wiring.nc, wiring.prefix, LEDGER_CHAIN_TIMEOUT_MS, wiring.metrics, wiring.log));
    },
    workers(wiring) {
      const state = stateOf(wiring);
      return [consumerWorker(wiring, state.consumer), adminWorker(wiring, state, cfg().rebuildTimeoutMs)];
    },
  };
}
