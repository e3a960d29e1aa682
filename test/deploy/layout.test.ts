import fs from 'node:fs';
import path from 'node:path';
import { SERVICE_MANIFEST } from '@acct/contracts';
import { factoryName, serviceOf } from '../support/services';

/**
 * One inner layout for every RPC service of the manifest (docs/adding-a-service.md, "The folder").
 * The gateway is the HTTP edge, not an RPC service: its layout is its own (middlewares/, admin/,
 * portal/, uploads/) and only its service.ts (the store) is checked here.
 */
const ROOT = path.resolve(__dirname, '..', '..');

/** Files allowed at the top of src/ (tests aside). */
const TOP_FILES = new Set(['main.ts', 'migrate.ts', 'service.ts', 'config.ts', 'queries.ts', 'metrics.ts']);
/** Folders allowed in src/, and what each holds. */
const FOLDERS: Record<string, string> = {
  handlers: 'one <resource>.handler.ts per resource: parse the typed request, call a flow, shape the reply',
  flows: 'transactions and orchestration (the rules that touch the database)',
  domain: 'pure rules, unit-tested (no I/O: layering.test.ts)',
  queries: 'all SQL of the service, when one queries.ts is not enough',
  consumers: 'stream consumers (what they apply to each event)',
  workers: 'background loops not fed by the stream (sweepers, delivery loops)',
  adapters: 'clients of outside systems (S3, outbound HTTP)',
  entities: 'MikroORM EntitySchemas and their dto functions',
  migrations: 'index.ts and one Migration<14 digits><Name>.ts per version',
  testing: 'helpers of its integration tests',
};
const isTest = (f: string) => /\.test\.ts$/.test(f);

const rpcServices = SERVICE_MANIFEST.filter((m) => m.queue !== null).map((m) => m.name);

function filesIn(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesIn(path.join(dir, e.name)).map((f) => `${e.name}/${f}`) : [e.name]));
}

/** What breaks the layout in services/<name>/src, one line each; empty when it conforms. */
function layoutProblems(name: string): string[] {
  const src = path.join(ROOT, 'services', name, 'src');
  const problems: string[] = [];
  for (const e of fs.readdirSync(src, { withFileTypes: true })) {
    if (e.isDirectory() && !(e.name in FOLDERS)) problems.push(`folder ${e.name}/ is not one of ${Object.keys(FOLDERS).join(', ')}`);
    if (e.isFile() && !isTest(e.name) && !TOP_FILES.has(e.name)) problems.push(`${e.name} belongs in a folder (top level holds ${[...TOP_FILES].join(', ')})`);
  }
  for (const f of ['main.ts', 'migrate.ts', 'service.ts', 'config.ts', 'handlers', 'migrations/index.ts']) if (!fs.existsSync(path.join(src, f))) problems.push(`${f} is missing`);
  for (const f of filesIn(path.join(src, 'handlers'))) if (!isTest(f) && !/^[a-z0-9-]+\.handler\.ts$/.test(f)) problems.push(`handlers/${f} is not <resource>.handler.ts`);
  for (const f of filesIn(path.join(src, 'migrations')))
    if (!isTest(f) && f !== 'index.ts' && !/^Migration\d{14}[A-Za-z0-9]+\.ts$/.test(f)) problems.push(`migrations/${f} is not Migration<14 digits><Name>.ts`);
  const index = path.join(src, 'migrations', 'index.ts');
  if (fs.existsSync(index) && /\b(CREATE|ALTER|DROP)\s/.test(fs.readFileSync(index, 'utf8')))
    problems.push('migrations/index.ts holds DDL (one class per version, in its own file)');
  if (fs.existsSync(path.join(src, 'queries.ts')) && fs.existsSync(path.join(src, 'queries'))) problems.push('both queries.ts and queries/');
  return problems;
}

describe('the service layout', () => {
  it.each(rpcServices)('services/%s/src has the one layout', (name) => {
    expect(layoutProblems(name)).toEqual([]);
  });

  it.each(SERVICE_MANIFEST.map((m) => m.name))('services/%s/src/service.ts exports its <name>Service()', (name) => {
    expect(() => serviceOf(name)).not.toThrow();
    expect(serviceOf(name).name).toBe(name);
    expect(fs.readFileSync(path.join(ROOT, 'services', name, 'src', 'service.ts'), 'utf8')).toContain(`export function ${factoryName(name)}(`);
  });

  it('knows what it checks (the rule finds a misplaced file)', () => {
    expect(layoutProblems('gateway').some((p) => p.includes('middlewares/'))).toBe(true);
  });
});
