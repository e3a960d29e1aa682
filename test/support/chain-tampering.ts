import { type LedgerScope, accountId } from '@acct/ledger';

/** A statement run as a superuser who turned the triggers off (session_replication_role = replica). */
export type Tamper = (sql: string, params?: unknown[]) => Promise<unknown>;

/** One way to tamper with a chain: its name, the change (given the chain's entry ids in order) and the first entry affected. */
export type ChainTampering = [name: string, change: (ids: string[], scope: LedgerScope) => Promise<unknown>, first: (ids: string[]) => string];

/**
 * Changes made directly in SQL to a chain of 5 entries (ids in chain order, each of 2 or 3 lines, the
 * first line of entry 2 a debit, no line 3 on entry 5), each with the entry the verifier must
 * report as the first broken one (API-DECISIONS §12). Shared by the posting library's chain test
 * (chains written by Books) and the bench seeder's (chains written in bulk).
 */
export function chainTamperings(tamper: Tamper): ChainTampering[] {
  return [
    ['a changed amount', (ids) => tamper(`UPDATE journal_lines SET amount_cents = amount_cents + 1 WHERE entry_id = $1`, [ids[2]]), (ids) => ids[2]!],
    [
      'a changed account',
      (ids, c) =>
        tamper(`UPDATE journal_lines SET account_code = '1000', account_id = $2 WHERE entry_id = $1 AND side = 'debit'`, [
          ids[1],
          accountId(c.organizationId, c.environment, '1000'),
        ]),
      (ids) => ids[1]!,
    ],
    ['a changed date', (ids) => tamper(`UPDATE journal_entries SET entry_date = '2026-10-31' WHERE id = $1`, [ids[3]]), (ids) => ids[3]!],
    ['a changed memo', (ids) => tamper(`UPDATE journal_entries SET memo = 'x' WHERE id = $1`, [ids[0]]), (ids) => ids[0]!],
    ['a deleted line', (ids) => tamper(`DELETE FROM journal_lines WHERE entry_id = $1 AND line_no = 2`, [ids[2]]), (ids) => ids[2]!],
    [
      'an added line',
      (ids, c) =>
        tamper(
          `INSERT INTO journal_lines (entry_id, line_no, account_id, account_code, side, amount_cents) VALUES ($1, 3, $2, '1000', 'debit', 5), ($1, 4, $3, '2000', 'credit', 5)`,
          [ids[4], accountId(c.organizationId, c.environment, '1000'), accountId(c.organizationId, c.environment, '2000')],
        ),
      (ids) => ids[4]!,
    ],
    [
      'a deleted entry (the next one is the first affected)',
      async (ids) => {
        await tamper(`DELETE FROM journal_lines WHERE entry_id = $1`, [ids[2]]);
        await tamper(`DELETE FROM journal_entries WHERE id = $1`, [ids[2]]);
      },
      (ids) => ids[3]!,
    ],
    [
      'a deleted last entry',
      async (ids) => {
        await tamper(`DELETE FROM journal_lines WHERE entry_id = $1`, [ids[4]]);
        await tamper(`DELETE FROM journal_entries WHERE id = $1`, [ids[4]]);
      },
      (ids) => ids[4]!,
    ],
    [
      'a deleted entry, the chain renumbered after it',
      async (ids) => {
        await tamper(`DELETE FROM journal_lines WHERE entry_id = $1`, [ids[1]]);
        await tamper(`DELETE FROM journal_entries WHERE id = $1`, [ids[1]]);
        // In two steps, through negative numbers: the unique index is checked row by row, so one
        // UPDATE of chain_seq - 1 fails whenever Postgres happens to move a later entry first.
        await tamper(`UPDATE journal_entries SET chain_seq = -(chain_seq - 1) WHERE id = ANY ($1::uuid[])`, [ids.slice(2)]);
        await tamper(`UPDATE journal_entries SET chain_seq = -chain_seq WHERE id = ANY ($1::uuid[])`, [ids.slice(2)]);
      },
      (ids) => ids[2]!,
    ],
    [
      'an entry inserted without a chain',
      (_ids, c) =>
        tamper(`INSERT INTO journal_entries (id, organization_id, environment, entry_date, source_type, source_id) VALUES ($1, $2, $3, '2026-11-01', 'bill', $1)`, [
          '99999999-9999-4999-8999-999999999999',
          c.organizationId,
          c.environment,
        ]),
      () => '99999999-9999-4999-8999-999999999999',
    ],
    [
      'an entry inserted into the chain (copying a hash)',
      async (ids, c) => {
        // Make room at number 4 (two steps: the unique index is checked row by row).
        await tamper(`UPDATE journal_entries SET chain_seq = chain_seq + 1000 WHERE id = ANY ($1::uuid[])`, [ids.slice(3)]);
        await tamper(`UPDATE journal_entries SET chain_seq = chain_seq - 999 WHERE id = ANY ($1::uuid[])`, [ids.slice(3)]);
        await tamper(
          `INSERT INTO journal_entries (id, organization_id, environment, entry_date, source_type, source_id, chain_seq, hash)
           SELECT '88888888-8888-4888-8888-888888888888', organization_id, environment, entry_date, source_type, source_id, 4, hash FROM journal_entries WHERE id = $1`,
          [ids[2]],
        );
        await tamper(`UPDATE journal_chain_heads SET entries = entries + 1 WHERE organization_id = $1`, [c.organizationId]);
      },
      () => '88888888-8888-4888-8888-888888888888',
    ],
    ['an entry appended past the head', (ids) => tamper(`UPDATE journal_entries SET chain_seq = 6 WHERE id = $1`, [ids[4]]), (ids) => ids[4]!],
  ];
}
