import pg from 'pg';
import { CONSUMERS } from '@acct/contracts';

/**
 * Posting → reporting lag of every journal entry the write scenarios posted through the services
 * (seeded entries have no consumed event and are left out): the time from the posting event's
 * occurred_at (stamped in the posting transaction, before its commit) to the start of the reporting
 * consumer's transaction that applied it (consumed_events.consumed_at). Waits first until reporting
 * holds every entry the services' ledgers hold for the organization (at most waitMs).
 */
export async function reportingLag(databaseUrl: string, organizationId: string, opts: { sourceIds?: string[]; waitMs?: number } = {}): Promise<string> {
  const waitMs = opts.waitMs ?? 60_000;
  // Only the entries of these records (e.g. the invoices of one scenario), when given.
  const only = opts.sourceIds ? ` AND e.source_id = ANY($3::uuid[])` : '';
  const onlyArgs = opts.sourceIds ? [opts.sourceIds] : [];
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: schemas } = await client.query<{ s: string }>(
      `SELECT table_schema AS s FROM information_schema.tables WHERE table_name = 'journal_entries' AND table_schema <> 'reporting'`,
    );
    const posted = async () => {
      let n = 0;
      for (const { s } of schemas) {
        const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${s}".journal_entries e WHERE organization_id = $1${only.replace('$3', '$2')}`, [
          organizationId,
          ...onlyArgs,
        ]);
        n += Number(rows[0]?.n ?? 0);
      }
      return n;
    };
    const applied = async () => {
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM reporting.journal_entries e JOIN reporting.consumed_events c ON c.consumer = $2 AND c.event_id = e.event_id WHERE e.organization_id = $1${only}`,
        [organizationId, CONSUMERS.reportingPostings, ...onlyArgs],
      );
      return Number(rows[0]?.n ?? 0);
    };
    // Counted again on every poll: requests still in flight when a scenario's time ran out commit later.
    const deadline = Date.now() + waitMs;
    let want = await posted();
    let got = await applied();
    while (got < want && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      want = await posted();
      got = await applied();
    }
    const { rows } = await client.query<{ n: string; p50: number; p99: number; max: number }>(
      `SELECT count(*) AS n,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99, max(ms) AS max
         FROM (SELECT extract(epoch FROM c.consumed_at - e.posted_at) * 1000 AS ms
                 FROM reporting.journal_entries e JOIN reporting.consumed_events c ON c.consumer = $2 AND c.event_id = e.event_id
                WHERE e.organization_id = $1${only}) x`,
      [organizationId, CONSUMERS.reportingPostings, ...onlyArgs],
    );
    const r = rows[0];
    const f = (x: number | null | undefined) => (x == null ? '-' : Number(x).toFixed(1));
    return `posting → reporting applied: ${r?.n ?? 0} entries measured (reporting holds ${got}, the services' ledgers ${want}), p50 ${f(r?.p50)} ms, p99 ${f(r?.p99)} ms, max ${f(r?.max)} ms`;
  } finally {
    await client.end();
  }
}
