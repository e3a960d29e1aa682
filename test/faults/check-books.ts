/** The fault-injection test's checks of the books (they balance) and of the logs (no secret in them). */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { SERVICE_MANIFEST } from '@acct/contracts';
import { EMAIL_DOMAIN, type WriteLoad } from './load';
import { type FaultSystem, type Figures, POSTING_SCHEMAS } from './system';

/** Every entry balances, debits = credits, A/R = open invoices, A/P = open bills. */
export async function expectBalancedBooks({ sql, keys }: FaultSystem, figures: Figures): Promise<void> {
  const org = keys.organization_id;
  // Each posting service keeps its own ledger: every entry of each balances.
  for (const schema of POSTING_SCHEMAS) {
    const unbalanced = await sql(
      `SELECT entry_id FROM ${schema}.journal_lines GROUP BY entry_id
        HAVING sum(CASE side WHEN 'debit' THEN amount_cents ELSE -amount_cents END) <> 0`,
    );
    expect([schema, unbalanced]).toEqual([schema, []]);
  }
  /** Debits, credits, and the debit balance of `account` in one service's ledger (this org, test). */
  const totals = async (schema: string, account: string) =>
    (
      await sql(
        `SELECT coalesce(sum(amount_cents) FILTER (WHERE side = 'debit'), 0)::bigint AS debits,
                coalesce(sum(amount_cents) FILTER (WHERE side = 'credit'), 0)::bigint AS credits,
                coalesce(sum(CASE WHEN account_code = $2 THEN CASE side WHEN 'debit' THEN amount_cents ELSE -amount_cents END END), 0)::bigint AS balance
           FROM ${schema}.journal_lines l JOIN ${schema}.journal_entries e ON e.id = l.entry_id
          WHERE e.organization_id = $1 AND e.environment = 'test'`,
        [org, account],
      )
    )[0];
  const t = await totals('receivables', '1100');
  const [open] = await sql(
    `SELECT coalesce(sum(total_cents - paid_cents), 0)::bigint AS open FROM receivables.invoices
      WHERE organization_id = $1 AND environment = 'test' AND status IN ('open', 'partially_paid')`,
    [org],
  );
  figures['receivables journal debits = credits (cents)'] = `${t.debits} = ${t.credits}`;
  figures['A/R (1100) = open invoice balances (cents)'] = `${t.balance} = ${open.open}`;
  expect(Number(t.debits)).toBeGreaterThan(0);
  expect(t.debits).toBe(t.credits);
  expect(t.balance).toBe(open.open);

  // Payables: A/P (2000, a liability: credit balance) = what posted bills still owe. Bills are
  // draft, posted or reversed; a paid bill is posted with paid = total (open balance 0), and a
  // reversed bill owes nothing (its reversal entry takes its credit off A/P).
  const p = await totals('payables', '2000');
  const [openBills] = await sql(
    `SELECT coalesce(sum(total_cents - paid_cents), 0)::bigint AS open, count(*)::int AS n FROM payables.bills
      WHERE organization_id = $1 AND environment = 'test' AND status = 'posted'`,
    [org],
  );
  const ap = -Number(p.balance);
  figures['payables journal debits = credits (cents)'] = `${p.debits} = ${p.credits}`;
  figures['A/P (2000) = open bill balances (cents)'] = `${ap} = ${openBills.open}`;
  expect(Number(p.debits)).toBeGreaterThan(0);
  expect(p.debits).toBe(p.credits);
  expect(ap).toBe(Number(openBills.open));
  expect(ap).toBeGreaterThan(0);
}

/**
 * The journals' hash chains (API-DECISIONS §12) are intact after the faults: GET /ledger/verification
 * for the load's organization (every entry of its journals checked), and `npm run admin -- ledger
 * verify` over every organization, exit 0.
 */
export async function expectIntactChains({ sql, keys, stack, databaseUrl }: FaultSystem, figures: Figures): Promise<void> {
  const res = await fetch(`${stack!.gatewayUrl}/api/v1/ledger/verification`, { headers: { authorization: `Bearer ${keys.test_key}` } });
  expect(res.status).toBe(200);
  const v = ((await res.json()) as { data: { status: string; entries_checked: number; chains: { service: string; entries: number; first_broken_entry_id: string | null }[] } })
    .data;
  let entries = 0;
  for (const schema of POSTING_SCHEMAS) {
    const [n] = await sql(`SELECT count(*)::int AS n FROM ${schema}.journal_entries WHERE organization_id = $1 AND environment = 'test'`, [keys.organization_id]);
    entries += Number(n.n);
  }
  figures['hash chains: status, entries checked = journal entries'] = `${v.status}, ${v.entries_checked} = ${entries}`;
  expect(v.status).toBe('intact');
  expect(v.chains.every((c) => c.first_broken_entry_id === null)).toBe(true);
  expect(v.entries_checked).toBe(entries);
  expect(entries).toBeGreaterThan(0);
  const admin = await promisify(execFile)(process.execPath, [path.join(__dirname, '../../services/gateway/dist/admin/cli.js'), 'ledger', 'verify'], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  for (const schema of POSTING_SCHEMAS) expect(admin.stdout).toContain(`${schema}: every chain intact`);
}

/** No API key, Authorization value, password or customer's or vendor's e-mail in any log line. */
export function expectNoSecretInTheLogs({ logDir, keys, databaseUrl }: FaultSystem, load: WriteLoad, figures: Figures): void {
  const files = fs.readdirSync(logDir).filter((f) => f.endsWith('.log'));
  // Every service's log of the run, its migrations', NATS's and our consumer's.
  for (const def of SERVICE_MANIFEST) expect(files).toContain(`${def.name}.log`);
  const secrets = [keys.test_key, keys.live_key, new URL(databaseUrl).password].filter(Boolean);
  const emails = new Set(load.acks.flatMap((a) => (a.kind === 'customer' || a.kind === 'vendor' ? [a.email] : [])));
  const patterns: Array<[string, RegExp]> = [
    ['api key', /svc_(test|live)_[0-9A-Za-z]{32,}/],
    ['authorization value', /bearer\s+[^\s"\\]{8,}/i],
    ['password field', /"password"\s*:\s*"(?!\[redacted\])[^"]+"/i],
    ['e-mail', new RegExp(`@${EMAIL_DOMAIN.replace(/\./g, '\\.')}`, 'i')],
  ];
  let lines = 0;
  const leaks: string[] = [];
  for (const f of files) {
    for (const line of fs.readFileSync(path.join(logDir, f), 'utf8').split('\n')) {
      if (!line) continue;
      lines++;
      const hit =
        secrets.find((s) => line.includes(s)) !== undefined
          ? 'secret value'
          : (patterns.find(([, re]) => re.test(line))?.[0] ?? ([...emails].some((e) => line.includes(e)) ? 'e-mail' : undefined));
      if (hit && leaks.length < 10) leaks.push(`${f}: ${hit}: ${line.slice(0, 300)}`);
    }
  }
  figures['log files / lines scanned'] = `${files.length} / ${lines}`;
  expect(lines).toBeGreaterThan(0);
  expect(leaks).toEqual([]);
}
