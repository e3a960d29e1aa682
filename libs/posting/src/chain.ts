import { LEDGER_CHAIN_OPERATIONS, type LedgerChainDto, type PostingEvent, type ServiceName } from '@acct/contracts';
import {
  type Orm,
  type OutboxMessage,
  type RpcServer,
  type ServiceDefinition,
  baseConfigSpec,
  databaseUrlOf,
  loadConfig,
  ormOpener,
  scopeOf,
  statement,
  transactionQuery,
} from '@acct/kit';
import { type ChainScope, type ChainVerification, type LedgerScope, type RunNamed, VERIFY_SNAPSHOT, chainScopes, verifyJournalChain } from '@acct/ledger';

/**
 * The tamper-evident journal on the posting side (API-DECISIONS §12): the posting events carry their
 * entry's hash, and each posting service verifies its own chain on request.
 */

/** Fills in the hash of each posting event's entry (known only once the entries are chained, before the outbox rows are written). */
export function stampEntryHashes(pending: readonly OutboxMessage[], hashes: ReadonlyMap<string, string>): readonly OutboxMessage[] {
  for (const m of pending) {
    const payload = m.payload as Partial<PostingEvent>;
    if (payload.type !== 'journal_entry.posted' || !payload.entry) continue;
    const hash = hashes.get(payload.entry.id);
    if (hash) payload.entry.hash = hash;
  }
  return pending;
}

/** Runs `work` with named statements in one read-only REPEATABLE READ transaction (one snapshot). */
async function inSnapshot<T>(orm: Orm, work: (run: RunNamed) => Promise<T>): Promise<T> {
  return orm.em.fork().transactional(async (em) => {
    const q = await transactionQuery(em);
    const run: RunNamed = (s, values) => q(statement(s.name, s.sql), values);
    await run(VERIFY_SNAPSHOT, []);
    return work(run);
  });
}

/** Verifies one scope's chain of this service's journal. */
export function verifyChain(orm: Orm, scope: LedgerScope, options: { batch?: number; onBatch?: (entries: number) => void } = {}): Promise<ChainVerification> {
  return inSnapshot(orm, (run) => verifyJournalChain(run, scope, options));
}

/** The reply of a chain operation. */
export function chainReply(service: ServiceName, v: ChainVerification): LedgerChainDto {
  return { service, entries: v.entries, head_hash: v.headHash, first_broken_entry_id: v.firstBrokenEntryId };
}

/** Registers the service's chain operation (ledger_chain.<service>), if it has one. */
export function registerChainVerification(server: RpcServer, orm: Orm, service: ServiceName): void {
  const op = (LEDGER_CHAIN_OPERATIONS as Partial<Record<ServiceName, (typeof LEDGER_CHAIN_OPERATIONS)[keyof typeof LEDGER_CHAIN_OPERATIONS]>>)[service];
  if (!op) return;
  server.handle(op, async (req) => ({ ok: true, status: 200, body: chainReply(service, await verifyChain(orm, scopeOf(req.ctx))) }));
}

/** One broken chain the admin verifier found. */
export interface BrokenChain extends ChainScope {
  service: ServiceName;
  verification: ChainVerification;
}

/**
 * Verifies every chain of this service's journal (every organization and environment), one
 * snapshot per chain; reports progress after each batch. The admin command's work.
 */
export async function verifyEveryChain(
  orm: Orm,
  service: ServiceName,
  progress: (p: { chains: number; entries: number }) => void,
): Promise<{ chains: number; entries: number; broken: BrokenChain[] }> {
  const scopes: ChainScope[] = [];
  await inSnapshot(orm, async (run) => {
    for await (const s of chainScopes(run)) scopes.push(s);
  });
  let chains = 0;
  let entries = 0;
  const broken: BrokenChain[] = [];
  for (const scope of scopes) {
    const v = await verifyChain(orm, scope, {
      onBatch: (n) => {
        entries += n;
        progress({ chains, entries });
      },
    });
    chains += 1;
    if (v.reason !== null) broken.push({ ...scope, service, verification: v });
    progress({ chains, entries });
  }
  return { chains, entries, broken };
}

/**
 * `npm run admin -- ledger verify`, for one posting service (its dist/workers/admin.js): verifies
 * every chain of its journal with a progress line on stdout (chains, entries, rate) at most once a
 * second and at the end; names each broken chain on stderr. Returns the exit code: 0 intact, 2 broken.
 */
export async function ledgerVerifyCommand(def: Pick<ServiceDefinition, 'name' | 'entities' | 'migrations'>, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { DATABASE_URL } = loadConfig({ DATABASE_URL: baseConfigSpec.DATABASE_URL }, env);
  const orm = await ormOpener(def)(databaseUrlOf(def.name, DATABASE_URL, env), 2);
  const started = Date.now();
  let printed = 0;
  const line = (p: { chains: number; entries: number }) => {
    const s = Math.max((Date.now() - started) / 1000, 0.001);
    process.stdout.write(`${def.name}: ${p.chains} chains, ${p.entries} entries checked, ${Math.round(p.entries / s)} entries/s, ${s.toFixed(1)} s\n`);
  };
  try {
    const done = await verifyEveryChain(orm, def.name, (p) => {
      if (Date.now() - printed < 1000) return;
      printed = Date.now();
      line(p);
    });
    line(done);
    for (const b of done.broken) {
      process.stderr.write(
        `BROKEN ${b.service} organization ${b.organizationId} environment ${b.environment}: first broken entry ${b.verification.firstBrokenEntryId ?? '(unknown)'}: ${b.verification.reason}\n`,
      );
    }
    process.stdout.write(`${def.name}: ${done.broken.length ? `${done.broken.length} broken chain(s)` : 'every chain intact'}\n`);
    return done.broken.length ? 2 : 0;
  } finally {
    await orm.close(true);
  }
}
