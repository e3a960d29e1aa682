import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { Migration } from '@mikro-orm/migrations';
import { migrate, openOrm, positional, statement, transactionQuery, type Orm } from '@acct/kit';
import { freshDatabase, type TestDatabase } from '@acct/testing';
import { ACCOUNT, accountId, DEFAULT_CHART, type LedgerEnvironment } from './accounts';
import { reversalOf, type JournalLine } from './entry';
import { insertDefaultAccounts, insertJournalEntries, LEDGER_DDL, type EntryToWrite, type RunNamed, UNBALANCED_SQLSTATE, type Execute } from './index';

const SCHEMA = 'ledger_it';

describe('ledger schema against real Postgres', () => {
  let db: TestDatabase;
  let pg: Client;
  /** The writer's `?` placeholders become pg's $1..$n, as kit numbers them. */
  const execute: Execute = (sql, params) => pg.query(positional(sql), params);
  /** The journal's named statements as libs/posting's Books runs them (kit's statement()). */
  const run: RunNamed = async <R>(s: { name: string; sql: string }, values: unknown[]) => (await pg.query({ ...statement(s.name, s.sql), values })).rows as R[];

  const org = randomUUID();
  const env: LedgerEnvironment = 'test';

  async function tx(fn: () => Promise<unknown>): Promise<void> {
    await pg.query('BEGIN');
    try {
      await fn();
      await pg.query('COMMIT');
    } catch (e) {
      await pg.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
  }

  async function insertEntry(id: string, opts: { reverses?: string; organizationId?: string } = {}): Promise<void> {
    await pg.query(
      `INSERT INTO journal_entries (id, organization_id, environment, entry_date, source_type, source_id, reverses_entry_id)
       VALUES ($1, $2, $3, '2026-01-15', 'invoice', $4, $5)`,
      [id, opts.organizationId ?? org, env, randomUUID(), opts.reverses ?? null],
    );
  }

  async function insertLine(entryId: string, lineNo: number, code: string, side: 'debit' | 'credit', amountCents: number, organizationId = org): Promise<void> {
    await pg.query(`INSERT INTO journal_lines (entry_id, line_no, account_id, account_code, side, amount_cents) VALUES ($1, $2, $3, $4, $5, $6)`, [
      entryId,
      lineNo,
      accountId(organizationId, env, code),
      code,
      side,
      amountCents,
    ]);
  }

  async function count(entryId: string): Promise<{ entries: number; lines: number }> {
    const r = await pg.query(
      `SELECT (SELECT count(*) FROM journal_entries WHERE id = $1)::int AS entries,
              (SELECT count(*) FROM journal_lines WHERE entry_id = $1)::int AS lines`,
      [entryId],
    );
    return r.rows[0];
  }

  /** A committed, balanced Dr A/R / Cr Revenue entry. */
  async function postedEntry(amountCents = 1_000): Promise<string> {
    const id = randomUUID();
    await tx(async () => {
      await insertEntry(id);
      await insertLine(id, 1, ACCOUNT.receivable, 'debit', amountCents);
      await insertLine(id, 2, ACCOUNT.revenue, 'credit', amountCents);
    });
    return id;
  }

  beforeAll(async () => {
    db = await freshDatabase('acct_ledger_it');
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    await pg.query(`CREATE SCHEMA ${SCHEMA}`);
    await pg.query(`SET search_path TO ${SCHEMA}`);
    await pg.query(LEDGER_DDL.map((d) => d.sql).join('\n'));
    await insertDefaultAccounts(execute, org, env);
  });

  afterAll(async () => {
    await pg?.end();
    await db?.drop();
  });

  it('commits a balanced entry', async () => {
    const id = await postedEntry();
    expect(await count(id)).toEqual({ entries: 1, lines: 2 });
  });

  it('refuses an unbalanced entry at COMMIT and leaves nothing behind', async () => {
    const id = randomUUID();
    await pg.query('BEGIN');
    await insertEntry(id);
    // Each insert is accepted: the balance is a deferred check.
    await insertLine(id, 1, ACCOUNT.receivable, 'debit', 1_000);
    await insertLine(id, 2, ACCOUNT.revenue, 'credit', 999);
    await expect(pg.query('COMMIT')).rejects.toMatchObject({
      code: UNBALANCED_SQLSTATE,
      message: expect.stringMatching(new RegExp(`journal entry ${id} is unbalanced`)),
    });
    expect(await count(id)).toEqual({ entries: 0, lines: 0 });
  });

  it('refuses lines added later that unbalance a committed entry', async () => {
    const id = await postedEntry();
    await expect(tx(() => insertLine(id, 3, ACCOUNT.revenue, 'credit', 1))).rejects.toMatchObject({ code: UNBALANCED_SQLSTATE });
    expect(await count(id)).toEqual({ entries: 1, lines: 2 });
  });

  it('refuses any line added to a committed entry, even a balanced pair, at once', async () => {
    const id = await postedEntry();
    await pg.query('BEGIN');
    await expect(insertLine(id, 3, ACCOUNT.receivable, 'debit', 5)).rejects.toMatchObject({
      code: UNBALANCED_SQLSTATE,
      message: expect.stringMatching(new RegExp(`journal entry ${id} was committed by another transaction`)),
    });
    await pg.query('ROLLBACK');
    await expect(
      tx(() =>
        pg.query(`INSERT INTO journal_lines (entry_id, line_no, account_id, account_code, side, amount_cents) VALUES ($1, 3, $2, $3, 'debit', 5), ($1, 4, $4, $5, 'credit', 5)`, [
          id,
          accountId(org, env, ACCOUNT.receivable),
          ACCOUNT.receivable,
          accountId(org, env, ACCOUNT.revenue),
          ACCOUNT.revenue,
        ]),
      ),
    ).rejects.toMatchObject({ code: UNBALANCED_SQLSTATE });
    expect(await count(id)).toEqual({ entries: 1, lines: 2 });
  });

  it("checks at COMMIT every line of the entry's own transaction: later statements, savepoints, many entries in one statement", async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    await tx(async () => {
      await insertEntry(a);
      await insertEntry(b);
      await insertLine(a, 1, ACCOUNT.receivable, 'debit', 300);
      await pg.query('SAVEPOINT s');
      await insertLine(a, 2, ACCOUNT.revenue, 'credit', 300);
      await pg.query('RELEASE SAVEPOINT s');
      await pg.query(
        `INSERT INTO journal_lines (entry_id, line_no, account_id, account_code, side, amount_cents) VALUES ($1, 1, $2, $3, 'debit', 40), ($1, 2, $4, $5, 'credit', 40)`,
        [b, accountId(org, env, ACCOUNT.receivable), ACCOUNT.receivable, accountId(org, env, ACCOUNT.revenue), ACCOUNT.revenue],
      );
    });
    expect(await count(a)).toEqual({ entries: 1, lines: 2 });
    expect(await count(b)).toEqual({ entries: 1, lines: 2 });

    // A savepoint rolled back takes its line away: the entry is unbalanced at COMMIT.
    const c = randomUUID();
    await pg.query('BEGIN');
    await insertEntry(c);
    await insertLine(c, 1, ACCOUNT.receivable, 'debit', 300);
    await pg.query('SAVEPOINT s');
    await insertLine(c, 2, ACCOUNT.revenue, 'credit', 300);
    await pg.query('ROLLBACK TO SAVEPOINT s');
    await expect(pg.query('COMMIT')).rejects.toMatchObject({ code: UNBALANCED_SQLSTATE, message: expect.stringMatching(/is unbalanced/) });
    expect(await count(c)).toEqual({ entries: 0, lines: 0 });
  });

  it('refuses an entry with no lines at COMMIT', async () => {
    const id = randomUUID();
    await pg.query('BEGIN');
    await insertEntry(id);
    await expect(pg.query('COMMIT')).rejects.toMatchObject({ code: UNBALANCED_SQLSTATE, message: expect.stringMatching(/has no lines/) });
    expect(await count(id)).toEqual({ entries: 0, lines: 0 });
  });

  it("refuses a line on another organization's account", async () => {
    const other = randomUUID();
    await insertDefaultAccounts(execute, other, env);
    const id = randomUUID();
    await expect(
      tx(async () => {
        await insertEntry(id);
        await insertLine(id, 1, ACCOUNT.receivable, 'debit', 1_000);
        await insertLine(id, 2, ACCOUNT.revenue, 'credit', 1_000, other);
      }),
    ).rejects.toMatchObject({ code: UNBALANCED_SQLSTATE, message: expect.stringMatching(/not its organization/) });
  });

  it('refuses UPDATE, DELETE and TRUNCATE of entries and lines', async () => {
    const id = await postedEntry();
    for (const sql of [
      `UPDATE journal_lines SET amount_cents = 2 WHERE entry_id = '${id}'`,
      `DELETE FROM journal_lines WHERE entry_id = '${id}'`,
      `UPDATE journal_entries SET memo = 'changed' WHERE id = '${id}'`,
      `DELETE FROM journal_entries WHERE id = '${id}'`,
      'TRUNCATE journal_lines',
      'TRUNCATE journal_entries CASCADE',
    ]) {
      await expect(pg.query(sql)).rejects.toThrow(/refused: journal entries are immutable/);
    }
    expect(await count(id)).toEqual({ entries: 1, lines: 2 });
  });

  it('reverses an entry once and refuses a second reversal', async () => {
    const original = await postedEntry(700);
    const reverse = async () => {
      const id = randomUUID();
      await tx(async () => {
        await insertEntry(id, { reverses: original });
        await insertLine(id, 1, ACCOUNT.receivable, 'credit', 700);
        await insertLine(id, 2, ACCOUNT.revenue, 'debit', 700);
      });
      return id;
    };
    const first = await reverse();
    expect(await count(first)).toEqual({ entries: 1, lines: 2 });
    await expect(reverse()).rejects.toMatchObject({ code: '23505', constraint: 'journal_entries_reversed_once' });
  });

  it('insertJournalEntries writes the entry and lines with stable account ids; a reversal nets to zero', async () => {
    const scope = { organizationId: randomUUID(), environment: 'live' as const };
    const customerId = randomUUID();
    const invoiceId = randomUUID();
    const lines: JournalLine[] = [
      { accountCode: ACCOUNT.receivable, side: 'debit', amountCents: 100_000_000_000, customerId, invoiceId },
      { accountCode: ACCOUNT.revenue, side: 'credit', amountCents: 100_000_000_000, customerId, invoiceId, memo: "O'Brien's?" },
    ];
    const entry = { id: randomUUID(), entryDate: '2026-01-31', sourceType: 'invoice', sourceId: invoiceId, memo: 'INV-1', lines };
    const write = (e: EntryToWrite['entry']) =>
      tx(async () => {
        // As Books does: the scope's chart first (idempotent: the second run changes nothing).
        await insertDefaultAccounts(execute, scope.organizationId, scope.environment);
        await insertJournalEntries(run, [{ scope, entry: e }]);
      });
    await write(entry);
    await write({ id: randomUUID(), ...reversalOf(entry, '2026-02-01') });

    const accounts = await pg.query(`SELECT id, code FROM ledger_accounts WHERE organization_id = $1 AND environment = 'live' ORDER BY code`, [scope.organizationId]);
    expect(accounts.rows).toEqual(DEFAULT_CHART.map((a) => ({ id: accountId(scope.organizationId, 'live', a.code), code: a.code })));

    const e = await pg.query(`SELECT to_char(entry_date, 'YYYY-MM-DD') AS entry_date, source_type, source_id, memo, reverses_entry_id FROM journal_entries WHERE id = $1`, [
      entry.id,
    ]);
    expect(e.rows).toEqual([{ entry_date: '2026-01-31', source_type: 'invoice', source_id: invoiceId, memo: 'INV-1', reverses_entry_id: null }]);
    const l = await pg.query(
      `SELECT line_no, account_id, account_code, side, amount_cents::text, customer_id, invoice_id, memo FROM journal_lines WHERE entry_id = $1 ORDER BY line_no`,
      [entry.id],
    );
    expect(l.rows).toEqual([
      {
        line_no: 1,
        account_id: accountId(scope.organizationId, 'live', '1100'),
        account_code: '1100',
        side: 'debit',
        amount_cents: '100000000000',
        customer_id: customerId,
        invoice_id: invoiceId,
        memo: null,
      },
      {
        line_no: 2,
        account_id: accountId(scope.organizationId, 'live', '4000'),
        account_code: '4000',
        side: 'credit',
        amount_cents: '100000000000',
        customer_id: customerId,
        invoice_id: invoiceId,
        memo: "O'Brien's?",
      },
    ]);

    const net = await pg.query(
      `SELECT a.code, sum(CASE WHEN l.side = 'debit' THEN l.amount_cents ELSE -l.amount_cents END)::text AS net
         FROM journal_lines l JOIN ledger_accounts a ON a.id = l.account_id
        WHERE a.organization_id = $1 GROUP BY a.code ORDER BY a.code`,
      [scope.organizationId],
    );
    expect(net.rows).toEqual([
      { code: '1100', net: '0' },
      { code: '4000', net: '0' },
    ]);
  });

  it('insertJournalEntries writes many entries and their lines in two named statements; each is checked at COMMIT', async () => {
    const other = { organizationId: randomUUID(), environment: 'live' as const };
    await insertDefaultAccounts(execute, other.organizationId, other.environment);
    const draft = (amount: number, credit = amount) => ({
      id: randomUUID(),
      entryDate: '2026-04-01',
      sourceType: 'invoice',
      sourceId: randomUUID(),
      memo: 'a "quoted", {braced} memo',
      lines: [
        { accountCode: ACCOUNT.receivable, side: 'debit' as const, amountCents: amount, invoiceId: randomUUID() },
        { accountCode: ACCOUNT.revenue, side: 'credit' as const, amountCents: credit },
      ],
    });
    const [a, b] = [draft(100), draft(250)];
    await tx(() =>
      insertJournalEntries(run, [
        { scope: { organizationId: org, environment: env }, entry: a },
        { scope: other, entry: b },
      ]),
    );
    expect(await count(a.id)).toEqual({ entries: 1, lines: 2 });
    expect(await count(b.id)).toEqual({ entries: 1, lines: 2 });
    const r = await pg.query(
      `SELECT e.environment, e.memo, l.account_id, l.amount_cents::int AS amount FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id WHERE e.id = $1 ORDER BY l.line_no`,
      [b.id],
    );
    expect(r.rows).toEqual([
      { environment: 'live', memo: b.memo, account_id: accountId(other.organizationId, 'live', ACCOUNT.receivable), amount: 250 },
      { environment: 'live', memo: b.memo, account_id: accountId(other.organizationId, 'live', ACCOUNT.revenue), amount: 250 },
    ]);
    // The code refuses an unbalanced draft before any SQL runs.
    await expect(tx(() => insertJournalEntries(run, [{ scope: { organizationId: org, environment: env }, entry: draft(100, 99) }]))).rejects.toThrow(/debits/);
  });

  it('upgrading from version 1 keeps the entries committed before it closed to new lines', async () => {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      await c.query('CREATE SCHEMA ledger_upgrade_it');
      await c.query('SET search_path TO ledger_upgrade_it');
      await c.query(LEDGER_DDL[0]!.sql);
      const o = randomUUID();
      await insertDefaultAccounts((sql, params) => c.query(positional(sql), params), o, env);
      const old = randomUUID();
      const line = (no: number, code: string, side: string) =>
        c.query(`INSERT INTO journal_lines (entry_id, line_no, account_id, account_code, side, amount_cents) VALUES ($1, $2, $3, $4, $5, 10)`, [
          old,
          no,
          accountId(o, env, code),
          code,
          side,
        ]);
      await c.query('BEGIN');
      await c.query(`INSERT INTO journal_entries (id, organization_id, environment, entry_date, source_type, source_id) VALUES ($1, $2, $3, '2026-01-15', 'invoice', $4)`, [
        old,
        o,
        env,
        randomUUID(),
      ]);
      await line(1, ACCOUNT.receivable, 'debit');
      await line(2, ACCOUNT.revenue, 'credit');
      await c.query('COMMIT');
      await c.query(LEDGER_DDL[1]!.sql);
      await c.query('BEGIN');
      await expect(line(3, ACCOUNT.receivable, 'debit')).rejects.toMatchObject({ code: UNBALANCED_SQLSTATE, message: expect.stringMatching(/committed by another transaction/) });
      await c.query('ROLLBACK');
    } finally {
      await c.end();
    }
  });

  it("runs as a MikroORM migration in a service schema and writes as Books does, on the transaction's connection", async () => {
    class LedgerMigration extends Migration {
      override async up(): Promise<void> {
        this.addSql(LEDGER_DDL.map((d) => d.sql).join('\n'));
      }
    }
    const orm: Orm = await openOrm({ url: db.url, schema: 'ledger_orm_it', entities: [], migrations: [{ name: 'Migration0001Ledger', class: LedgerMigration }], poolMax: 2 });
    try {
      expect(await migrate(orm)).toEqual(['Migration0001Ledger']);
      const tables = await pg.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'ledger_orm_it' ORDER BY 1`);
      expect(tables.rows.map((r) => r.table_name)).toEqual(expect.arrayContaining(['journal_entries', 'journal_lines', 'ledger_accounts']));
      const scope = { organizationId: randomUUID(), environment: 'test' as const };
      const id = randomUUID();
      await orm.em.fork().transactional(async (em) => {
        const q = await transactionQuery(em);
        await insertDefaultAccounts((sql, params) => em.execute(sql, params, 'run'), scope.organizationId, scope.environment);
        const entry = {
          id,
          entryDate: '2026-03-01',
          sourceType: 'payment',
          sourceId: randomUUID(),
          memo: "what's this?",
          lines: [
            { accountCode: ACCOUNT.cash, side: 'debit' as const, amountCents: 250 },
            { accountCode: ACCOUNT.receivable, side: 'credit' as const, amountCents: 250 },
          ],
        };
        await insertJournalEntries((s, values) => q(statement(s.name, s.sql), values), [{ scope, entry }]);
      });
      const rows = await orm.em
        .fork()
        .execute(`SELECT e.memo, count(l.id)::int AS lines FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id WHERE e.id = ? GROUP BY e.memo`, [id]);
      expect(rows).toEqual([{ memo: "what's this?", lines: 2 }]);

      // The database, not only the code, refuses an unbalanced write through the ORM.
      const bad = randomUUID();
      await expect(
        orm.em.fork().transactional(async (em) => {
          await em.execute(`INSERT INTO journal_entries (id, organization_id, environment, entry_date, source_type, source_id) VALUES (?, ?, 'test', '2026-03-01', 'payment', ?)`, [
            bad,
            scope.organizationId,
            randomUUID(),
          ]);
          await em.execute(`INSERT INTO journal_lines (entry_id, line_no, account_id, account_code, side, amount_cents) VALUES (?, 1, ?, '1000', 'debit', 5)`, [
            bad,
            accountId(scope.organizationId, 'test', '1000'),
          ]);
        }),
      ).rejects.toThrow(/is unbalanced/);
      expect(await orm.em.fork().execute(`SELECT id FROM journal_entries WHERE id = ?`, [bad])).toEqual([]);
    } finally {
      await orm.close(true);
    }
  });
});

describe("the ledger's checks on a journal that grew after a connection planned them", () => {
  let db: TestDatabase;
  const SCHEMA_GROWN = 'ledger_grown';
  const org = randomUUID();
  const connect = async () => {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    await c.query(`SET search_path TO ${SCHEMA_GROWN}`);
    return c;
  };

  beforeAll(async () => {
    db = await freshDatabase('acct_ledger_grown');
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('looks entries and lines up by index, not by scanning the journal, with plans made while it was empty', async () => {
    const pg = await connect();
    const bulk = await connect();
    try {
      await pg.query(`CREATE SCHEMA ${SCHEMA_GROWN}`);
      await pg.query(`SET search_path TO ${SCHEMA_GROWN}`);
      await pg.query(LEDGER_DDL.map((d) => d.sql).join('\n'));
      await insertDefaultAccounts((sql, params) => pg.query(positional(sql), params), org, 'test');
      const run: RunNamed = async <R>(s: { name: string; sql: string }, values: unknown[]) => (await pg.query({ ...statement(s.name, s.sql), values })).rows as R[];
      const post = async () => {
        await pg.query('BEGIN');
        await insertJournalEntries(run, [
          {
            scope: { organizationId: org, environment: 'test' },
            entry: {
              id: randomUUID(),
              entryDate: '2026-04-01',
              sourceType: 'invoice',
              sourceId: randomUUID(),
              lines: [
                { accountCode: ACCOUNT.receivable, side: 'debit', amountCents: 100 },
                { accountCode: ACCOUNT.revenue, side: 'credit', amountCents: 100 },
              ],
            },
          },
        ]);
        await pg.query('COMMIT');
      };
      // Planned, and kept for this connection, while the journal is all but empty (a generic plan
      // after the fifth run of a statement with parameters).
      for (let i = 0; i < 7; i++) await post();
      // The journal grows by 30,000 entries from elsewhere, with no ANALYZE (its checks are not the point here).
      await bulk.query(`SET session_replication_role = replica`);
      await bulk.query(
        `INSERT INTO journal_entries (id, organization_id, environment, entry_date, source_type, source_id)
         SELECT gen_random_uuid(), $1, 'test', '2026-04-01', 'invoice', gen_random_uuid() FROM generate_series(1, 30000)`,
        [org],
      );
      await bulk.query(
        `INSERT INTO journal_lines (entry_id, line_no, account_id, account_code, side, amount_cents)
         SELECT e.id, s.n, $2, s.code, s.side, 100 FROM journal_entries e
           CROSS JOIN (VALUES (1, '${ACCOUNT.receivable}', 'debit'), (2, '${ACCOUNT.revenue}', 'credit')) AS s (n, code, side)
          WHERE e.organization_id = $1 AND e.chain_seq IS NULL`,
        [org, accountId(org, 'test', ACCOUNT.receivable)],
      );
      // What the checks' statements ran as, on the next post of the first connection.
      const plans: string[] = [];
      pg.on('notice', (n) => plans.push(String(n.message)));
      await pg.query(`LOAD 'auto_explain'`);
      await pg.query(`SET auto_explain.log_min_duration = 0`);
      await pg.query(`SET auto_explain.log_nested_statements = on`);
      await pg.query(`SET auto_explain.log_level = notice`);
      await post();
      // The same-transaction check of the lines (per statement) and the balance check (per entry, at COMMIT).
      const checks = plans.filter((p) => /FROM new_lines|FROM journal_lines l JOIN ledger_accounts/.test(p));
      expect(checks).toHaveLength(2);
      for (const p of checks) expect(p).not.toMatch(/Seq Scan on journal_(entries|lines)/);
      expect(checks.join('\n')).toMatch(/Index Scan using journal_entries_pkey/);
    } finally {
      await bulk.end();
      await pg.end();
    }
  });
});
