import { createHash } from 'node:crypto';
import { CONSUMED_DDL, OUTBOX_DDL } from '@acct/kit';
import { LEDGER_DDL } from '@acct/ledger';
import { BOOKS_LOCK_DDL } from './books-lock';
import { POSTING_MIGRATIONS, withPostingMigrations } from './migrations';

/**
 * Shipped DDL versions are frozen: databases already migrated ran exactly this text, so editing it
 * would make new databases differ from old ones with no migration to tell. Change a shared table by
 * adding a version (and its checksum here), never by editing one.
 */
const FROZEN: Record<string, string> = {
  ledger_v1: 'd9da523df74175c0c5a57586f0a175bd27c5c7c9393e3a6fee1742ad8c366907',
  ledger_v2: '54392c504eeb0bebb3e83fe6b7004e8f378db3c2e430ff737e6b7bbd45286047',
  ledger_v3: '670a3060895b7ddb8ff777c49a88f545c685abc9c3c681d09a0ca1fa34a93b39',
  ledger_v4: '990843cb8a93c5b2bbe647c9cdbab2963e74b510f17d1fac7052ed8720b609d4',
  outbox_v1: '9d5b6277fed4714d75d1af738cde808e50f291cc0ab6debc3c02cee679eeda0a',
  consumed_v1: '000c97678d0f259db7e21fc3effe9f9f00c108990a3195a0e573319915c9ad47',
  consumed_v2: 'cc6ddd52e5be5496e9504c572501240ebd002624aba3ddc2453934236cbe84f8',
  consumed_v3: '3dba154cae8433ec8e14b824a512da08ab9701f5af9c29626d6564c8cf2940c5',
  books_lock_v1: 'c2e519aac05218b5b72e727beb53814e1e7b1ba153b88c4a146f03f0af775b35',
};

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

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
