import type { ServiceName } from '@acct/contracts';
import { type Logger, type Orm, type ServiceMetrics, type ServiceWiring, type Worker, loadConfig, v } from '@acct/kit';
import { Counter, Gauge } from 'prom-client';
import { verifyEveryChain } from './chain';

/** How often each posting process re-computes every chain of its journal (LEDGER_VERIFY_INTERVAL_MS). */
export const chainVerifierConfigSpec = {
  LEDGER_VERIFY_INTERVAL_MS: v.int(
    21_600_000,
    'how often each posting process verifies every hash chain of its journal (ledger_chain_* metrics), ms; 0: never. The first run comes after a random part of it (at most 10 min), so that replicas and restarts spread',
    0,
    7 * 86_400_000,
  ),
};

/** The outcome of one verification of every chain. */
export type ChainVerificationOutcome = 'intact' | 'broken' | 'failed';

interface ChainMetrics {
  runs: Counter<'outcome'>;
  broken: Gauge;
  lastRun: Gauge;
  lastEntries: Gauge;
}

function chainMetrics(metrics: ServiceMetrics): ChainMetrics {
  const registers = [metrics.registry];
  return {
    runs: new Counter({
      name: 'ledger_chain_verifications_total',
      help: 'Verifications of every hash chain of the journal by this process, by outcome (intact, broken, failed: could not finish).',
      labelNames: ['outcome'],
      registers,
    }),
    broken: new Gauge({ name: 'ledger_chain_broken_chains', help: "Broken chains (organization and environment) this process's last finished verification found.", registers }),
    lastRun: new Gauge({
      name: 'ledger_chain_last_verified_timestamp_seconds',
      help: "When this process's last verification finished (intact or broken), Unix seconds; 0 before the first.",
      registers,
    }),
    lastEntries: new Gauge({ name: 'ledger_chain_verified_entries', help: "Journal entries this process's last finished verification checked.", registers }),
  };
}

/**
 * The scheduled ledger verification of a posting service (the work of `npm run admin -- ledger
 * verify`, in the process): every LEDGER_VERIFY_INTERVAL_MS it re-computes every chain of its
 * journal, read-only, one snapshot per chain, and reports the result as metrics; a broken chain is
 * also logged at error with its organization, environment and first broken entry. Each replica
 * runs its own, so the alerts take the newest over replicas (deploy/RUNBOOK.md, AccountingLedgerChainBroken).
 */
export class ChainVerifier implements Worker {
  readonly name = 'ledger-chain-verifier';
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<ChainVerificationOutcome> | undefined;
  private stopping = false;
  private readonly metrics: ChainMetrics | undefined;

  constructor(
    private readonly deps: { orm: Orm; service: ServiceName; log: Logger; metrics?: ServiceMetrics },
    private readonly schedule: { intervalMs: number; firstDelayMs: number },
  ) {
    // Disabled (interval 0): no series, so that the alerts on them stay quiet.
    this.metrics = deps.metrics && schedule.intervalMs > 0 ? chainMetrics(deps.metrics) : undefined;
  }

  start(): Promise<void> {
    this.stopping = false;
    if (this.schedule.intervalMs > 0) this.next(this.schedule.firstDelayMs);
    return Promise.resolve();
  }

  /** Stops the timer; a run in progress gives up at its next batch (or when the ORM closes) without waiting for it: shutdown stays quick. */
  stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    return Promise.resolve();
  }

  /** One verification of every chain now (the timer's work); at most one at a time. */
  runOnce(): Promise<ChainVerificationOutcome> {
    return (this.running ??= this.verify().finally(() => (this.running = undefined)));
  }

  private next(delayMs: number): void {
    this.timer = setTimeout(() => {
      void this.runOnce().then(() => {
        if (!this.stopping) this.next(this.schedule.intervalMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async verify(): Promise<ChainVerificationOutcome> {
    const { orm, service, log } = this.deps;
    const started = Date.now();
    try {
      const done = await verifyEveryChain(orm, service, () => {
        if (this.stopping) throw new Error('stopping');
      });
      for (const b of done.broken) {
        log.error(
          { organization_id: b.organizationId, environment: b.environment, first_broken_entry_id: b.verification.firstBrokenEntryId, reason: b.verification.reason },
          'ledger chain broken',
        );
      }
      const outcome = done.broken.length ? 'broken' : 'intact';
      this.metrics?.broken.set(done.broken.length);
      this.metrics?.lastEntries.set(done.entries);
      this.metrics?.lastRun.set(Math.floor(Date.now() / 1000));
      this.metrics?.runs.inc({ outcome });
      log.info({ chains: done.chains, entries: done.entries, broken: done.broken.length, ms: Date.now() - started }, 'ledger chains verified');
      return outcome;
    } catch (e) {
      if (this.stopping) return 'failed';
      this.metrics?.runs.inc({ outcome: 'failed' });
      log.warn({ err: e }, 'ledger chain verification could not finish');
      return 'failed';
    }
  }
}

/** The verifier of a posting service's wiring, on LEDGER_VERIFY_INTERVAL_MS of the environment. */
export function chainVerifierWorker(w: Pick<ServiceWiring, 'orm' | 'log' | 'metrics' | 'name'>, env: NodeJS.ProcessEnv = process.env): ChainVerifier {
  const { LEDGER_VERIFY_INTERVAL_MS: intervalMs } = loadConfig(chainVerifierConfigSpec, env);
  const firstDelayMs = Math.floor(Math.random() * Math.min(intervalMs, 600_000));
  return new ChainVerifier({ orm: w.orm, service: w.name, log: w.log, metrics: w.metrics }, { intervalMs, firstDelayMs });
}
