import { createHash } from 'node:crypto';
import { CONSUMED_DDL, OUTBOX_DDL } from '@acct/kit';
import { LEDGER_DDL } from '@acct/ledger';
import { BOOKS_LOCK_DDL } from './books-lock';
import { POSTING_MIGRATIONS, withPostingMigrations } from './migrations';

/**
 * Shipped DDL versions are frozen: databases already migrated ran exactly this text, so editing it
 * would make new databases differ from old ones with no migration to tell. Change a shared table by
 * adding a version (and its checksum here), never by editing one. Layout (indentation, line breaks)
 * may change, not one token: the checksums are of the SQL with its whitespace runs made one space,
 * as test/deploy/migrations.test.ts pins every service's migrations.
 */
const FROZEN: Record<string, string> = {
  ledger_v1: '2882bc68e7af875876b2358e28daa6ec303b0c6a5fc8d53e1f293c392fffead6',
  ledger_v2: 'e4f5abb80462d9c080a6065ff452bf22c3e76b05480c76c3b6f0c8e38b72a2a6',
  ledger_v3: 'f77c38acf8ec7b95e64c5b73169e36b0c661a9b96d7ecbc2248f33ed41b76c17',
  ledger_v4: 'cf40799f7c956f5217b0388bcf244974ddeca34bba88e70f670dd4ef130fa849',
  outbox_v1: '33325b5db7caae9ffee0ec6d5236ccbe376612737a34fff9e2d360af1cfca0ee',
  consumed_v1: '414e5202701557b0c1551f3f8471c4b49eb1fe2b807962adf9c08a03ca44de89',
  consumed_v2: '61026d66b2bb3b955a6f96ac29962d1137a6584c356a00f71fc38eb32d704171',
  consumed_v3: 'ba9d95fcf34eba37cb05ea83d8eb1730155eaf5d3c82d1a7a0907708b5bd2cb1',
  books_lock_v1: '99b415af2da20b05e58aa3a2fa5978622e9203fb72d63edd32d02ad7c04236ec',
};

const sha = (s: string) => createHash('sha256').update(s.replace(/\s+/g, ' ').trim()).digest('hex');

describe('shared DDL versions', () => {
  it('every shipped version is unchanged and every version has a recorded checksum', () => {
    const seen: Record<string, string> = {};
    for (const d of LEDGER_DDL) seen[`ledger_v${d.version}`] = sha(d.sql);
    for (const d of OUTBOX_DDL) seen[`outbox_v${d.version}`] = sha(d.sql);
    for (const d of CONSUMED_DDL) seen[`consumed_v${d.version}`] = sha(d.sql);
    for (const d of BOOKS_LOCK_DDL) seen[`books_lock_v${d.version}`] = sha(d.sql);
    expect(seen).toEqual(FROZEN);
  });

  it('versions are 1..n in order', () => {
    for (const list of [LEDGER_DDL, OUTBOX_DDL, CONSUMED_DDL]) expect(list.map((d) => d.version)).toEqual(list.map((_, i) => i + 1));
  });

  it('posting services run the shared migrations first, under stable names', () => {
    const shipped = ['Posting_Ledger_v1', 'Posting_Outbox_v1', 'Posting_Ledger_v2', 'Posting_Ledger_v3', 'Posting_BooksLock_v1', 'Posting_Ledger_v4'];
    expect(POSTING_MIGRATIONS.map((m) => m.name)).toEqual(shipped);
    const own = { name: 'Migration20990101000000Own', class: POSTING_MIGRATIONS[0]!.class };
    expect(withPostingMigrations([own]).map((m) => m.name)).toEqual([...shipped, own.name]);
  });
});
