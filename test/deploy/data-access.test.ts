import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The data-access rule of docs/data-access.md, where a scan can check it, over the string literals
 * (template literals included) of every non-test source file of libs/ and services/:
 * - one placeholder style: no SQL text with a `$1`-style placeholder (write `?`; kit's statement()
 *   numbers them for a named statement);
 * - SQL only where it belongs: a service's queries.ts, queries/ or migrations/, or the lib (or
 *   gateway store) module that owns the tables, never inline in handlers, flows or consumers.
 * SQL is recognised by its upper-case keywords, as the repo writes them.
 */
const ROOT = path.resolve(__dirname, '..', '..');

const SQL =
  /\bSELECT\b[\s\S]*\bFROM\b|\bINSERT\s+INTO\b|\bUPDATE\s+\w+\s+(AS\s+\w+\s+)?SET\b|\bDELETE\s+FROM\b|\bTRUNCATE\b|\b(CREATE|ALTER|DROP)\s+(TABLE|INDEX|UNIQUE\s+INDEX|SCHEMA|FUNCTION|TRIGGER|DATABASE)\b/;
const NUMBERED = /\$\d/;

/** Where a service keeps its SQL. */
const SERVICE_SQL = /^services\/[^/]+\/src\/(queries\.ts$|queries\/|migrations\/)/;

/** Modules that own their tables (and the catalogue readers of kit), with what they own. */
const OWNERS: Record<string, string> = {
  'libs/kit/src/outbox.ts': 'outbox',
  'libs/kit/src/consumer-store.ts': 'consumed_events, parked_events',
  'libs/kit/src/rpc-idempotency.ts': 'rpc_idempotency (the Idempotency-Key answers each service keeps)',
  'libs/kit/src/sql.ts': "an entity's statements by id (entityRows)",
  'libs/kit/src/db.ts': 'databases (ensureDatabase, dropDatabase)',
  'libs/kit/src/drift.ts': 'information_schema reads of the drift check',
  'libs/ledger/src/ddl.ts': 'ledger_accounts, journal_entries, journal_lines, journal_chain_heads (their DDL, the default chart)',
  'libs/ledger/src/write.ts': 'journal_entries, journal_lines, journal_chain_heads (the chained write)',
  'libs/ledger/src/verify.ts': 'journal_entries, journal_lines, journal_chain_heads (the chain verifier reads)',
  'libs/posting/src/books-lock.ts': 'books_lock (the lock date copy of each posting service)',
  // The gateway is the edge, not a service of the layout: each store owns its tables.
  'services/gateway/src/idempotency.ts': 'idempotency_keys',
  'services/gateway/src/key-store.ts': 'api_keys (read with connected_apps, organizations; last_used_at written)',
  'services/gateway/src/shared-buckets.ts': 'rate_buckets',
  'services/gateway/src/dashboard/audit-log.ts': 'audit_log',
  'services/gateway/src/dashboard/scopes.ts': 'organizations, connected_apps (the dashboard scope reads)',
  'services/gateway/src/dashboard/passkeys.ts': 'passkeys, webauthn_challenges (a passkey read with its member)',
};

function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'dist' || e.name === 'testing') continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') && !e.name.endsWith('.test.ts')) out.push(path.relative(ROOT, p));
    }
  };
  walk(dir);
  return out;
}

/** Every string and template literal of a file (a template's parts joined), with its line. */
function literals(file: string): { line: number; text: string }[] {
  const sf = ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const out: { line: number; text: string }[] = [];
  const visit = (n: ts.Node): void => {
    let text: string | undefined;
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) text = n.text;
    else if (ts.isTemplateExpression(n)) text = [n.head.text, ...n.templateSpans.map((s) => s.literal.text)].join(' ');
    if (text !== undefined) out.push({ line: sf.getLineAndCharacterOfPosition(n.getStart()).line + 1, text });
    else ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

const files = ['libs', 'services'].flatMap((top) =>
  fs
    .readdirSync(path.join(ROOT, top))
    .map((name) => path.join(ROOT, top, name, 'src'))
    .filter((d) => fs.existsSync(d))
    .flatMap(sources),
);
const sqlOf = new Map(files.map((f) => [f, literals(f).filter((l) => SQL.test(l.text))]));

describe('data access (docs/data-access.md)', () => {
  it('scans the real sources', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(sqlOf.get('libs/kit/src/outbox.ts')?.length).toBeGreaterThan(0);
    expect(sqlOf.get('services/receivables/src/queries.ts')?.length).toBeGreaterThan(0);
  });

  it('writes every placeholder as ?', () => {
    const numbered = [...sqlOf].flatMap(([f, ls]) => ls.filter((l) => NUMBERED.test(l.text)).map((l) => `${f}:${l.line}`));
    expect(numbered).toEqual([]);
  });

  it("keeps SQL in a service's queries and migrations, or in the module that owns the tables", () => {
    const misplaced = [...sqlOf].filter(([f, ls]) => ls.length && !SERVICE_SQL.test(f) && !(f in OWNERS)).map(([f, ls]) => `${f}:${ls.map((l) => l.line).join(',')}`);
    expect(misplaced).toEqual([]);
  });

  it('lists only modules that still hold SQL (remove an entry once it holds none)', () => {
    const stale = Object.keys(OWNERS).filter((f) => !sqlOf.get(f)?.length);
    expect(stale).toEqual([]);
  });
});
