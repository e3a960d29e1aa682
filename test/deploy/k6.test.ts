import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ROUTES as API_ROUTES, RPC_OPERATIONS, type ServiceName } from '@acct/contracts';

/**
 * The k6 scripts cannot run here (no k6 binary), so: they parse, the profiles exist with
 * thresholds on every request name, settings come from the environment, and every path they call
 * is a route of the API.
 */
const K6 = path.resolve(__dirname, '..', '..', 'deploy', 'k6');
const scripts = fs.readdirSync(K6).filter((f) => f.endsWith('.js'));
const source = (f: string) => fs.readFileSync(path.join(K6, f), 'utf8');

/**
 * The main writes and reads of each service that serves API routes: scenarios.js must send each.
 * A service that starts serving routes fails the test below until its entry is added here.
 */
const MAIN_CALLS: Partial<Record<ServiceName, string[]>> = {
  receivables: [
    'POST /api/v1/customers',
    'GET /api/v1/customers/{id}',
    'PATCH /api/v1/customers/{id}',
    'POST /api/v1/invoices',
    'POST /api/v1/invoices/{id}/post',
    'POST /api/v1/payments',
    'GET /api/v1/invoices',
    'GET /api/v1/invoices/{id}',
  ],
  payables: [
    'POST /api/v1/vendors',
    'GET /api/v1/vendors/{id}',
    'POST /api/v1/bills',
    'GET /api/v1/bills',
    'GET /api/v1/bills/{id}',
    'POST /api/v1/vendor-payments',
    'GET /api/v1/vendor-payments',
  ],
  documents: ['GET /api/v1/documents', 'GET /api/v1/settings/invoice-defaults'],
  reporting: ['GET /api/v1/reports/summary', 'GET /api/v1/reports/accounts-receivable', 'GET /api/v1/accounts'],
  'webhook-dispatcher': ['POST /api/v1/webhook-endpoints', 'GET /api/v1/webhook-endpoints'],
};

describe('k6 scenarios', () => {
  it.each(scripts.map((f) => [f]))('%s is valid JavaScript (ES module)', (f) => {
    const sf = ts.createSourceFile(f, source(f), ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
    const diags = (sf as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
    expect(diags.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
  });

  it('the parser does report a syntax error', () => {
    const sf = ts.createSourceFile('bad.js', 'export const x = {;', ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
    expect((sf as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics.length).toBeGreaterThan(0);
  });

  const s = source('scenarios.js');

  it('scenarios.js has the smoke, steady, spike and soak profiles, chosen by PROFILE', () => {
    for (const p of ['smoke', 'steady', 'spike', 'soak']) expect(s).toMatch(new RegExp(`^  ${p}: \\{`, 'm'));
    expect(s).toContain("__ENV.PROFILE || 'smoke'");
  });

  it('reads the base URL and the key from the environment', () => {
    const lib = source('lib.js');
    expect(lib).toContain('__ENV.BASE_URL');
    expect(lib).toContain('__ENV.API_KEY');
    for (const f of scripts.filter((x) => x !== 'lib.js')) expect([f, source(f).includes('requireKey(')]).toEqual([f, true]);
  });

  it('has p95 and p99 thresholds for every request name it sends, and error-rate thresholds', () => {
    const names = [.../export const ROUTES = \[([^\]]*)\];/.exec(s)![1]!.matchAll(/'([a-z-]+)'/g)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(0);
    const sent = [...s.matchAll(/(?:get|post|patch)\([^;]*?'([a-z-]+)',?\s*\)/gs)].map((m) => m[1]!).filter((n) => n !== 'setup' && n !== 'auth-check');
    expect(new Set(sent)).toEqual(new Set(names));
    expect(s).toContain('thresholds[`http_req_duration{name:${name}}`] = [`p(95)<${P95_MS}`, `p(99)<${P99_MS}`]');
    expect(s).toContain('http_req_failed');
    expect(s).toContain('checks:');
  });

  /** "METHOD /path/{id}" of every API route, with the service that serves it (null: the gateway itself). */
  const served = new Map<string, ServiceName | null>(API_ROUTES.map((r) => [`${r.method} ${r.path.replace(/\{[a-z_]+\}/g, '{id}')}`, r.rpc ? RPC_OPERATIONS[r.rpc] : null]));
  const calls = [...s.matchAll(/\b(get|post|patch)\(\s*[`'](\/api\/v1\/[^`'?]*)/g)].map((m) => `${m[1]!.toUpperCase()} ${m[2]!.replace(/\$\{[^}]+\}/g, '{id}')}`);

  it('calls only routes of the API', () => {
    expect(calls.filter((c) => !served.has(c))).toEqual([]);
  });

  it('lists the main writes and reads of every service that serves API routes, each a route of that service', () => {
    const services = new Set([...served.values()].filter((v): v is ServiceName => v !== null));
    expect(Object.keys(MAIN_CALLS).sort()).toEqual([...services].sort());
    for (const [service, main] of Object.entries(MAIN_CALLS)) for (const c of main) expect([c, served.get(c)]).toEqual([c, service]);
  });

  it.each(Object.entries(MAIN_CALLS))("covers %s's main writes and reads", (_service, main) => {
    for (const c of main) expect([c, calls.includes(c)]).toEqual([c, true]);
  });
});
