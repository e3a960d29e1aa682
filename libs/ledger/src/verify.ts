/** The chain verifier: re-computes each scope's hashes from its entries, in one snapshot. */
import type { LedgerEnvironment } from './accounts';
import { GENESIS_HASH, type ChainEntry, type ChainLine, chainHash } from './chain';
import type { LedgerScope } from './ddl';
import type { NamedSql, RunNamed } from './write';

/** What the verifier found in one chain. */
export interface ChainVerification {
  /** Entries checked (up to and including the first broken one). */
  entries: number;
  /** The head's hash as recorded (what the next entry chains to). */
  headHash: string;
  /** null when intact; else the first entry affected (for a deleted last entry, the deleted entry's id). */
  firstBrokenEntryId: string | null;
  /** Why it is broken (for operators; not part of the API reply). */
  reason: string | null;
}

/** A scope whose chain the admin verifier checks. */
export interface ChainScope extends LedgerScope {
  entries: number;
}

const READ_HEAD: NamedSql = {
  name: 'ledger_read_chain_head',
  sql: `SELECT entries::text AS entries, head_hash, head_entry_id::text AS head_entry_id, unchained_entries::text AS unchained_entries
  FROM journal_chain_heads WHERE organization_id = ? AND environment = ?`,
};
// One query per batch: the entries in chain order (keyset on journal_entries_chain), each with its
// lines as one JSON array of arrays in line order (an index probe of journal_lines_line_no per entry).
// JSON is only the transport: the canonical content is built in Node (chain.ts), never in SQL.
const CHAIN_BATCH: NamedSql = {
  name: 'ledger_chain_batch',
  sql: `SELECT e.id::text AS id, e.entry_date::text AS entry_date, e.source_type, e.source_id::text AS source_id, e.memo,
    e.reverses_entry_id::text AS reverses_entry_id, e.chain_seq::text AS seq, e.hash,
    (SELECT json_agg(json_build_array(l.account_id, l.account_code, l.side, l.amount_cents, l.customer_id, l.invoice_id, l.vendor_id, l.bill_id, l.memo) ORDER BY l.line_no)
       FROM journal_lines l WHERE l.entry_id = e.id) AS lines
  FROM journal_entries e WHERE e.organization_id = ? AND e.environment = ? AND e.chain_seq > ?
  ORDER BY e.chain_seq LIMIT ?`,
};
const UNCHAINED: NamedSql = {
  name: 'ledger_unchained_entries',
  sql: `SELECT count(*)::text AS n, (array_agg(id::text ORDER BY created_at DESC))[1] AS newest
  FROM journal_entries WHERE organization_id = ? AND environment = ? AND chain_seq IS NULL`,
};
const LIST_HEADS: NamedSql = {
  name: 'ledger_list_chain_heads',
  sql: `SELECT organization_id::text AS organization_id, environment, entries::text AS entries
  FROM journal_chain_heads WHERE (organization_id, environment) > (?::uuid, ?::text)
  ORDER BY organization_id, environment LIMIT ?`,
};
/** The verifier reads head and entries in one snapshot: run first in its transaction. */
export const VERIFY_SNAPSHOT: NamedSql = { name: 'ledger_verify_snapshot', sql: 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY' };

/** A line as CHAIN_BATCH sends it (node-postgres parses the json): the columns of ChainLine in its order. */
type LineTuple = [string, string, 'debit' | 'credit', number, string | null, string | null, string | null, string | null, string | null];
interface EntryRow {
  id: string;
  entry_date: string;
  source_type: string;
  source_id: string;
  memo: string | null;
  reverses_entry_id: string | null;
  seq: string;
  hash: string | null;
  lines: LineTuple[] | null;
}

/**
 * Re-computes the chain of one scope from the tables, in keyset batches of `batch` entries (memory
 * stays one batch): every chained entry must follow the previous one (chain_seq n+1) and carry the
 * hash of the previous hash and its content; the last one must be the head; the unchained entries
 * (written before version 3) must be as many as the head counts. Run it in a transaction that ran
 * VERIFY_SNAPSHOT first, so that head and entries are of one instant.
 */
export async function verifyJournalChain(run: RunNamed, scope: LedgerScope, options: { batch?: number; onBatch?: (entries: number) => void } = {}): Promise<ChainVerification> {
  const batch = options.batch ?? 1000;
  const [head] = await run<{ entries: string; head_hash: string; head_entry_id: string | null; unchained_entries: string }>(READ_HEAD, [scope.organizationId, scope.environment]);
  const headEntries = Number(head?.entries ?? 0);
  const headHash = head?.head_hash ?? GENESIS_HASH;
  let hash = GENESIS_HASH;
  let seq = 0;
  const broken = (id: string | null, reason: string): ChainVerification => ({ entries: seq, headHash, firstBrokenEntryId: id, reason });
  /** Chains one batch on; the verdict at its first broken entry, else null. */
  const checkBatch = (rows: readonly EntryRow[]): ChainVerification | null => {
    for (const r of rows) {
      if (Number(r.seq) !== seq + 1) {
        seq += 1;
        return broken(r.id, `entry ${r.id} is number ${r.seq} of the chain, expected ${seq}: an entry before it is missing`);
      }
      seq += 1;
      if (seq > headEntries) return broken(r.id, `entry ${r.id} is past the chain's head (${headEntries} entries)`);
      const entry: ChainEntry = {
        id: r.id,
        entryDate: r.entry_date,
        sourceType: r.source_type,
        sourceId: r.source_id,
        memo: r.memo,
        reversesEntryId: r.reverses_entry_id,
        lines: (r.lines ?? []).map(([accountId, accountCode, side, amountCents, customerId, invoiceId, vendorId, billId, memo]): ChainLine => ({
          accountId,
          accountCode,
          side,
          amountCents,
          customerId,
          invoiceId,
          vendorId,
          billId,
          memo,
        })),
      };
      hash = chainHash(hash, entry);
      if (hash !== r.hash) return broken(r.id, `entry ${r.id} does not match its hash`);
    }
    return null;
  };
  const page = (after: number) => run<EntryRow>(CHAIN_BATCH, [scope.organizationId, scope.environment, after, batch]);
  // One batch ahead: the next batch's query (keyset after this batch's last entry) runs in Postgres
  // while this one is hashed here. Used only if this batch is intact (its last entry is then number
  // `seq`); else awaited and dropped, so that nothing runs in the transaction after the verifier.
  let next: Promise<EntryRow[]> | null = page(0);
  while (next) {
    const rows: EntryRow[] = await next;
    next = rows.length === batch ? page(Number(rows[batch - 1]!.seq)) : null;
    const found = checkBatch(rows);
    if (found) {
      await next?.catch(() => undefined);
      return found;
    }
    options.onBatch?.(rows.length);
  }
  if (seq < headEntries || hash !== headHash) {
    return broken(head?.head_entry_id ?? null, `the chain ends at entry ${seq} but its head is entry ${headEntries}: entries at its end are missing`);
  }
  const [unchained] = await run<{ n: string; newest: string | null }>(UNCHAINED, [scope.organizationId, scope.environment]);
  if (Number(unchained?.n ?? 0) !== Number(head?.unchained_entries ?? 0)) {
    return broken(unchained?.newest ?? null, `${unchained?.n ?? 0} entries have no place in the chain, ${head?.unchained_entries ?? 0} were written before it started`);
  }
  return { entries: seq, headHash, firstBrokenEntryId: null, reason: null };
}

/** The chains of every scope, in key order, `batch` at a time (the admin verifier's list). */
export async function* chainScopes(run: RunNamed, batch = 500): AsyncGenerator<ChainScope> {
  let after = ['00000000-0000-0000-0000-000000000000', ''];
  for (;;) {
    const rows = await run<{ organization_id: string; environment: LedgerEnvironment; entries: string }>(LIST_HEADS, [...after, batch]);
    for (const r of rows) yield { organizationId: r.organization_id, environment: r.environment, entries: Number(r.entries) };
    if (rows.length < batch) return;
    const last = rows[rows.length - 1]!;
    after = [last.organization_id, last.environment];
  }
}
