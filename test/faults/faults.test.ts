import { SERVICE_MANIFEST } from '@acct/contracts';
import { waitFor } from '@acct/testing';
import { expectBalancedBooks, expectIntactChains, expectNoSecretInTheLogs } from './check-books';
import { expectEveryEventAppliedOnce, expectEveryOutboxRowInTheStream } from './check-events';
import { expectEveryAckedWriteOnce } from './check-writes';
import { PAYABLES_KINDS, RECEIVABLES_KINDS, WriteLoad } from './load';
import { CLUSTER, DUPLICATE_WINDOW_S, FaultSystem, type Figures, REPLICAS, STARTUP_MS } from './system';

/**
 * Fault injection against the whole system: a steady write load through the gateway while every
 * service and the NATS server are killed with SIGKILL and restarted, and Postgres (the run's own) is
 * stopped (immediately, and with a fast shutdown) and started again. No attempt is ever answered 500:
 * an outage is a 503 with Retry-After (or a network error while a process is down). Afterwards every write that was
 * acknowledged is in the books exactly once, every event reached the stream and a consumer applied
 * it exactly once, the books balance (A/R = open invoices in receivables, A/P = open bills in
 * payables), and no log line carries a secret or a customer's or vendor's e-mail.
 *
 * Correctness never depends on timing: every wait polls for a condition with a generous deadline.
 */

const LONG_OUTAGE_MS = 4_000;
const WORKERS = 4;
/** After each fault, the load must get this many more writes acknowledged (the system is back). */
const PROGRESS_AFTER_FAULT = 40;
/** ...of which at least this many of each service's writes (receivables' and payables'). */
const PROGRESS_PER_SERVICE = 8;
/** Rounds of kill -9 over every service: more chances to hit a request between commit and reply. */
const SERVICE_ROUNDS = 2;
const PROGRESS_DEADLINE_MS = 200_000;
/** How long Postgres stays down in its longer outage. */
const POSTGRES_OUTAGE_MS = 3_000;

/**
 * FAULTS=postgres,nats (any of services, nats, postgres) injects only those kinds of fault, with
 * the same load and every check: `FAULTS=postgres npm run test:faults` runs the Postgres faults alone.
 */
const KINDS = ['services', 'nats', 'postgres'] as const;
const SELECTED = new Set((process.env.FAULTS ?? KINDS.join(',')).split(',').map((k) => k.trim()));
for (const k of SELECTED) if (!(KINDS as readonly string[]).includes(k)) throw new Error(`FAULTS: unknown kind ${k} (one of ${KINDS.join(', ')})`);
const injects = (kind: (typeof KINDS)[number]) => SELECTED.has(kind);
/** How many faults the selection injects. */
const EXPECTED_FAULTS = (injects('services') ? SERVICE_ROUNDS * SERVICE_MANIFEST.length : 0) + (injects('nats') ? 2 : 0) + (injects('postgres') ? 2 : 0);

interface Fault {
  what: string;
  downMs: number;
}

describe('faults: kill -9 of every service and of NATS, Postgres stopped, under a steady write load', () => {
  const started = Date.now();
  const system = new FaultSystem();
  let load: WriteLoad;
  const faults: Fault[] = [];
  const figures: Figures = {};
  /** Tests that ran to their last line; fewer than TESTS keeps the logs for a look. */
  let passed = 0;
  const TESTS = 6;

  // A cluster is 3 NATS nodes and twice the processes: slower to start on a busy machine.
  beforeAll(() => system.start(), STARTUP_MS);

  afterAll(async () => {
    figures['duration (s)'] = ((Date.now() - started) / 1000).toFixed(1);
    process.stderr.write(
      `\nFault-injection figures\n${Object.entries(figures)
        .map(([k, v]) => `  ${k.padEnd(44)} ${v}`)
        .join('\n')}\n`,
    );
    await system.stop(passed < TESTS || !!process.env.FAULTS_KEEP_LOGS);
  }, 120_000);

  /** Resolves once every service answers /readyz 200 (after a restart of NATS, for instance). */
  async function allReady(): Promise<void> {
    await waitFor(
      async () => {
        for (const svc of system.stack!.services.values()) {
          const ok = await fetch(`http://127.0.0.1:${svc.opsPort}/readyz`).then(
            (r) => r.status === 200,
            () => false,
          );
          if (!ok) return false;
        }
        return system.stack!.services.size === SERVICE_MANIFEST.length * REPLICAS;
      },
      60_000,
      200,
    );
  }

  /** The load got `n` more writes acknowledged: the system serves again after a fault. */
  async function progress(n = PROGRESS_AFTER_FAULT): Promise<void> {
    const from = load.acked;
    const fromAr = load.ackedOf(RECEIVABLES_KINDS);
    const fromAp = load.ackedOf(PAYABLES_KINDS);
    // Generous: after a gateway crash a retried Idempotency-Key request can wait out the stale
    // in-flight record (120 s, see below) in every worker at once.
    const done = () => load.acked >= from + n && load.ackedOf(RECEIVABLES_KINDS) >= fromAr + PROGRESS_PER_SERVICE && load.ackedOf(PAYABLES_KINDS) >= fromAp + PROGRESS_PER_SERVICE;
    await waitFor(() => Promise.resolve(done()), PROGRESS_DEADLINE_MS, 100).catch(() => {
      throw new Error(
        `the load did not get ${n} more writes (${PROGRESS_PER_SERVICE} of each service) acknowledged within ${PROGRESS_DEADLINE_MS / 1000} s (stuck at ${load.acked}: receivables ${load.ackedOf(RECEIVABLES_KINDS) - fromAr}, payables ${load.ackedOf(PAYABLES_KINDS) - fromAp} more; unexpected: ${JSON.stringify(load.unexpected.slice(0, 3))})`,
      );
    });
  }

  it('runs the write load through kill -9 of each service and of NATS (short and longer than the dedupe window) and Postgres stops, answering no 500', async () => {
    load = new WriteLoad(system.stack!.gatewayUrl, system.keys.test_key);
    load.start(WORKERS);
    await progress(80);

    // Each service in turn, the gateway last (the manifest's order); on a cluster one of its two
    // processes, alternately.
    for (const [round, def] of injects('services') ? Array.from({ length: SERVICE_ROUNDS }, (_, r) => SERVICE_MANIFEST.map((d) => [r, d] as const)).flat() : []) {
      const target = CLUSTER ? (round % 2 === 0 ? def.name : `${def.name}#1`) : def.name;
      const down = Date.now();
      await system.stack!.stopService(target, 'SIGKILL');
      await new Promise((r) => setTimeout(r, 500));
      await system.stack!.startService(target); // throws when the process does not come back ready
      faults.push({ what: `kill -9 ${target}`, downMs: Date.now() - down });
      await progress();
    }

    // NATS: a quick crash and restart (within the dedupe window), then an outage longer than it.
    for (const outageMs of injects('nats') ? [0, LONG_OUTAGE_MS] : []) {
      const down = Date.now();
      await system.nats.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, outageMs));
      await system.nats.start();
      faults.push({
        what: `kill -9 nats-server${CLUSTER ? ' (1 of 3 nodes)' : ''}, ${outageMs ? `${outageMs / 1000} s (> ${DUPLICATE_WINDOW_S} s window)` : 'immediate restart'}`,
        downMs: Date.now() - down,
      });
      await allReady();
      await progress();
    }

    // Postgres (the run's own): a crash (immediate stop: every connection drops mid-query, mid-commit)
    // restarted at once, then a fast shutdown (57P01 to every session) and an outage of a few seconds.
    for (const [mode, outageMs] of injects('postgres')
      ? ([
          ['immediate', 0],
          ['fast', POSTGRES_OUTAGE_MS],
        ] as const)
      : []) {
      const down = Date.now();
      await system.postgres.stop(mode);
      await new Promise((r) => setTimeout(r, outageMs));
      await system.postgres.start();
      faults.push({ what: `postgres ${mode} stop, ${outageMs ? `${outageMs / 1000} s outage` : 'immediate restart'}`, downMs: Date.now() - down });
      await allReady();
      await progress();
    }

    await load.stop();
    figures['faults injected'] = faults.length;
    faults.forEach((f, i) => (figures[`  ${i + 1}. ${f.what} (down ms)`] = f.downMs));
    figures['writes acknowledged (2xx)'] = load.acked;
    for (const kind of [...RECEIVABLES_KINDS, ...PAYABLES_KINDS]) figures[`  ${kind}`] = load.acks.filter((a) => a.kind === kind).length;
    figures['requests sent (attempts)'] = load.stats.requests;
    figures['  retried after 5xx / network / 409 in_flight'] = `${load.stats.retried5xx} / ${load.stats.retriedNetwork} / ${load.stats.retriedInFlight}`;
    figures['  retried writes answered as replays'] = load.stats.replayedAfterRetry;
    figures['  answered 503 (of which without Retry-After)'] = `${load.stats.status503} (${load.stats.status503WithoutRetryAfter})`;
    figures['  answered 500'] = load.stats.status500;
    const by = load.stats.byService;
    figures['  writes retried (replays): receivables / payables'] = `${by.receivables.retried} (${by.receivables.replayed}) / ${by.payables.retried} (${by.payables.replayed})`;
    // A request that had reached the gateway when it was killed leaves its Idempotency-Key
    // in_flight; retries get 409 in_flight until the record goes stale (120 s in the gateway).
    figures['  longest retry until a final answer (ms)'] = load.stats.longestRetryMs;

    expect(faults).toHaveLength(EXPECTED_FAULTS);
    // No fault is a bug: 0 × 500 over the whole run, and every 503 says when to retry.
    expect(load.stats.samples500).toEqual([]);
    expect(load.stats.status500).toBe(0);
    expect(load.stats.status503WithoutRetryAfter).toBe(0);
    expect(load.acked).toBeGreaterThan(80 + faults.length * PROGRESS_AFTER_FAULT);
    expect(load.ackedOf(PAYABLES_KINDS)).toBeGreaterThan(faults.length * PROGRESS_PER_SERVICE);
    // Every request got its expected answer in the end: no 409 for a retried identical request,
    // no 4xx, no request that never converged.
    expect(load.stats.conflictsAfterRetry).toBe(0);
    expect(load.unexpected).toEqual([]);
    // The faults did hit requests in flight (otherwise this run proved little).
    expect(load.stats.retried5xx + load.stats.retriedNetwork).toBeGreaterThan(0);
    expect(by.payables.retried).toBeGreaterThan(0);
    passed++;
  }, 540_000);

  // The checks of what the load and the faults left behind, in this order.
  const checks: Array<[string, () => Promise<void> | void, number]> = [
    ["publishes every outbox row (receivables' and payables'), and the stream holds each at least once", () => expectEveryOutboxRowInTheStream(system, figures), 300_000],
    ['has the consumer apply every outbox event exactly once: none twice, none missing', () => expectEveryEventAppliedOnce(system, figures), 300_000],
    ['has every acknowledged write in the database exactly once (by external id), and nothing else', () => expectEveryAckedWriteOnce(system, load, figures), 120_000],
    ['keeps the books: every entry balances, debits = credits, A/R = open invoices, A/P = open bills', () => expectBalancedBooks(system, figures), 60_000],
    ['keeps every journal hash chain intact (GET /ledger/verification and admin ledger verify)', () => expectIntactChains(system, figures), 120_000],
    ["leaks no API key, Authorization value, password or customer's or vendor's e-mail into any log line", () => expectNoSecretInTheLogs(system, load, figures), 60_000],
  ];
  for (const [name, check, timeout] of checks) {
    it(
      name,
      async () => {
        await check();
        passed++;
      },
      timeout,
    );
  }
});
