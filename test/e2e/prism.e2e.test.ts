/**
 * The server against its own OpenAPI document, judged by a tool nobody here wrote: Stoplight Prism
 * (@stoplight/prism-cli) as a validating proxy in front of the gateway. Every record of every
 * resource is made through it (FIXTURES), then every GET of the route table with JSON answers is read
 * through it, and a few refusals are provoked. Prism checks each request and each response against
 * the document and reports what does not conform in an `sl-violations` header; there must be none
 * on any response, and none on any request this test means to be valid.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROUTES } from '@acct/contracts';
import { accountId } from '@acct/ledger';
import { ROOT, freePort } from '@acct/stack';
import { FIXTURES, collectionOf, paramsOf } from './fixtures';
import { type E2E, bootstrapOrg, client, startE2E } from './harness';
import { type Api, E2E_ENV, createCustomer, createOpenInvoice, paymentBody, uid } from './receivables.helpers';

interface Violation {
  location: string[];
  severity: string;
  code: string | number;
  message: string;
}

/** Values of the query parameters a report requires. */
const QUERY_VALUES: Record<string, string> = { from: '2026-01-01', to: '2026-12-31', year: '2026', as_of: '2026-12-31' };

const PRISM = path.join(ROOT, 'node_modules', '.bin', 'prism');

/** Starts `prism proxy` on a free port; resolves once it listens. */
async function startPrism(documentFile: string, upstream: string): Promise<{ base: string; proc: ChildProcess; log: () => string }> {
  const port = await freePort();
  const proc = spawn(PRISM, ['proxy', documentFile, upstream, '--host', '127.0.0.1', '--port', String(port), '--errors', 'false'], {
    env: { ...process.env, SCARF_ANALYTICS: 'false', NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 150_000;
  while (!out.includes('Prism is listening')) {
    if (proc.exitCode !== null) throw new Error(`prism exited ${proc.exitCode}:\n${out.slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`prism did not start:\n${out.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { base: `http://127.0.0.1:${port}`, proc, log: () => out };
}

describe('e2e: the server against its document, through Stoplight Prism', () => {
  let e2e: E2E;
  let prism: Awaited<ReturnType<typeof startPrism>> | undefined;
  let dir: string;
  let api: Api;
  /** What Prism reported, per exchange: "<METHOD> <path> → <status>: <where> <message>". */
  const responseViolations: string[] = [];
  const requestViolations: string[] = [];
  /** Prism's findings on the requests meant to be refused: proof that it judges requests at all. */
  const expectedFindings: string[] = [];
  let exchanges = 0;
  /** While set, the requests are meant to be refused: Prism's request findings are expected then. */
  let refusing = false;

  beforeAll(async () => {
    e2e = await startE2E(E2E_ENV);
    const keys = await bootstrapOrg(e2e.databaseUrl, 'Prism org');
    // The general ledger requires an account of the key's organization and environment.
    QUERY_VALUES.account_id = accountId(keys.organization_id, 'test', '1000');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prism-'));
    const file = path.join(dir, 'openapi.yaml');
    fs.writeFileSync(file, await (await fetch(`${e2e.base}/developers/openapi.yaml`)).text());
    prism = await startPrism(file, e2e.base);
    const inner = client(prism.base, keys.test_key);
    api = async (method, p, body, headers) => {
      const res = await inner(method, p, body, headers);
      exchanges++;
      const raw = res.headers.get('sl-violations');
      for (const v of raw ? (JSON.parse(raw) as Violation[]) : []) {
        const line = `${method} ${p} → ${res.status}: ${v.location.join('.')} ${v.message}`;
        if (v.location[0] === 'response') responseViolations.push(line);
        else (refusing ? expectedFindings : requestViolations).push(line);
      }
      // Prism answers itself (problem+json) when it cannot forward: that is a failure of the proxy, not the server.
      if ((res.headers.get('content-type') ?? '').startsWith('application/problem+json')) throw new Error(`prism: ${res.text}`);
      return res;
    };
  }, 240_000);

  afterAll(async () => {
    prism?.proc.kill('SIGTERM');
    await e2e?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('makes a record of every resource, then reads every JSON GET of the route table', async () => {
    const ids: Record<string, Record<string, string>> = {};
    for (const [collection, f] of Object.entries(FIXTURES)) {
      const id = await f.create(api);
      ids[collection] = { id, ...(f.params ? await f.params(api, id) : {}) };
    }
    const gets = ROUTES.filter((r) => r.method === 'GET' && r.auth && r.kind !== 'download' && !r.responses.some((x) => x.contentType));
    let read = 0;
    for (const r of gets) {
      const names = paramsOf(r.path);
      const values = ids[collectionOf(r.path)];
      if (names.length > 0 && !values) continue;
      const p = r.path.replace(/\{([^}]+)\}/g, (_all, name: string) => values![name === paramsOf(r.path)[0] ? 'id' : name]!);
      const required = ((r.query as { required?: string[] } | undefined)?.required ?? []).map((q) => `${q}=${QUERY_VALUES[q] ?? ''}`);
      const query = required.length ? `?${required.join('&')}` : '';
      const res = await api('GET', `${p}${query}`);
      // A setting not configured yet is a documented 404 (moreErrors): also a response to check.
      const expected = r.moreErrors?.['404'] && res.status === 404 ? 404 : 200;
      expect([r.operationId, res.status]).toEqual([r.operationId, expected]);
      read++;
    }
    expect(read).toBeGreaterThan(30);
  });

  it('a flow that moves money, and refusals: 400, 404, 409', async () => {
    const customer = await createCustomer(api);
    const invoice = await createOpenInvoice(api, customer, 12_000);
    expect((await api('POST', '/api/v1/payments', paymentBody(invoice.id, 2000))).status).toBe(201);
    expect((await api('PATCH', `/api/v1/customers/${customer}`, { metadata: { crm: 'c-1' } })).status).toBe(200);
    expect((await api('POST', `/api/v1/invoices/${invoice.id}/void`)).status).toBe(409);
    expect((await api('GET', `/api/v1/invoices/${randomUUID()}`)).status).toBe(404);
    // The lock date (API-DECISIONS §12): set, refused posting into it, cleared.
    expect((await api('PUT', '/api/v1/settings/books-lock', { lock_date: '2026-01-31' })).status).toBe(200);
    expect((await api('POST', '/api/v1/payments', paymentBody(invoice.id, 100, { received_at: '2026-01-15' }))).status).toBe(409);
    expect((await api('PUT', '/api/v1/settings/books-lock', { lock_date: null })).status).toBe(200);
    expect((await api('POST', '/api/v1/customers', { external_customer_id: uid('cus'), name: 'X' }, { 'idempotency-key': 'k-1' })).status).toBe(201);
    refusing = true;
    try {
      expect((await api('POST', '/api/v1/customers', { name: 'no external id' })).status).toBe(400);
      expect((await api('GET', '/api/v1/customers?limit=0')).status).toBe(400);
    } finally {
      refusing = false;
    }
  });

  it('saw no response that does not conform, and no valid request Prism would refuse', () => {
    expect(responseViolations).toEqual([]);
    expect(requestViolations).toEqual([]);
    expect(exchanges).toBeGreaterThan(50);
    // Prism does judge: both refused requests were findings of its own too.
    expect(expectedFindings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^POST \/api\/v1\/customers → 400: request\.body/),
        expect.stringMatching(/^GET \/api\/v1\/customers\?limit=0 → 400: request\.query/),
      ]),
    );
    process.stdout.write(`prism: ${exchanges} exchanges through the validating proxy, 0 violations\n`);
  });
});
