import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST_NAMES, migrationSql, serviceOf } from '../support/services';

/**
 * Versioned DDL is frozen: a migration a database has run must never change, or a fresh install and
 * an upgraded one differ. The SQL (whitespace aside) of every migration of every service is pinned by its SHA-256 in
 * migrations.lock.json; a new migration is added with `UPDATE_MIGRATIONS_LOCK=1 npx jest
 * --selectProjects unit --runTestsByPath test/deploy/migrations.test.ts`, an old one never edited.
 */
const LOCK = join(__dirname, 'migrations.lock.json');

/** Layout (indentation, line breaks) may change; not one token of the SQL. */
const normalized = (sql: string) => sql.replace(/\s+/g, ' ').trim();

async function current(): Promise<Record<string, Record<string, string>>> {
  const out: Record<string, Record<string, string>> = {};
  for (const name of MANIFEST_NAMES) {
    const entries: Record<string, string> = {};
    for (const m of serviceOf(name).migrations)
      entries[m.name] = createHash('sha256')
        .update(normalized(await migrationSql(m)))
        .digest('hex');
    out[name] = entries;
  }
  return out;
}

describe('migrations', () => {
  it('run exactly the SQL pinned in migrations.lock.json (versioned DDL is never edited)', async () => {
    const now = await current();
    if (process.env.UPDATE_MIGRATIONS_LOCK === '1') {
      const old = JSON.parse(readFileSync(LOCK, 'utf8')) as Record<string, Record<string, string>>;
      // Adding is allowed; changing a pinned one is not, even when updating.
      for (const [svc, ms] of Object.entries(old)) for (const [n, h] of Object.entries(ms)) if (now[svc]?.[n] !== undefined) expect(now[svc]?.[n]).toBe(h);
      writeFileSync(LOCK, `${JSON.stringify(now, null, 2)}\n`);
    }
    const pinned = JSON.parse(readFileSync(LOCK, 'utf8')) as Record<string, Record<string, string>>;
    expect(now).toEqual(pinned);
  });

  it('have unique names per service, applied in the order listed', () => {
    for (const name of MANIFEST_NAMES) {
      const names = serviceOf(name).migrations.map((m) => m.name);
      expect(new Set(names).size).toBe(names.length);
    }
  });
});
