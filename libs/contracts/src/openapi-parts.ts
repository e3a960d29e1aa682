/**
 * Parts of the OpenAPI document that are not about one route: the typing of union branches for code
 * generators, the request samples of each operation (x-codeSamples) and the introduction.
 */
import type { JsonSchema } from './schemas/common';

/**
 * A copy of a part of the document where each anyOf/oneOf branch that names no type of its own
 * (`{format: 'date'}` under a string) has its parent's: the branches say the same to a validator,
 * and a code generator (openapi-typescript) types the value as that type, not `string | unknown`.
 */
export function typedBranches<T>(node: T, parentType?: unknown): T {
  if (Array.isArray(node)) return (node as unknown[]).map((v) => typedBranches(v, parentType)) as T;
  if (!node || typeof node !== 'object') return node;
  const o = node as JsonSchema;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(o)) out[k] = typedBranches(v, (k === 'anyOf' || k === 'oneOf') && typeof o.type === 'string' ? o.type : undefined);
  // Called on an anyOf/oneOf array's items only: parentType is set there and nowhere else.
  if (parentType !== undefined && out.type === undefined && out.$ref === undefined) out.type = parentType;
  return out as T;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an operation object of the document, read by key
type Operation = Record<string, any>;

/** How a request sample names the value of a path parameter: `{id}` → `$ID` (shell), `id` (TypeScript). */
const shellVar = (name: string) => `$${name.toUpperCase()}`;

/** `a'b` as one shell word. */
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The required query parameters of an operation with a sample value each (the schema's example, default or first enum). */
function sampleQuery(op: Operation): [string, unknown][] {
  return ((op.parameters ?? []) as Operation[])
    .filter((p) => p.in === 'query' && p.required)
    .map((p) => {
      const s = (p.schema ?? {}) as Operation;
      return [p.name as string, s.example ?? s.default ?? (Array.isArray(s.enum) ? (s.enum as unknown[])[0] : undefined) ?? (s.format === 'date' ? '2026-03-31' : 'value')];
    });
}

/**
 * The request samples of an operation (`x-codeSamples`, which Redoc shows beside each one): curl,
 * and the TypeScript SDK for the JSON operations. Built from the operation itself (its path,
 * required query parameters and request example), so they cannot name a field it does not take.
 */
export function codeSamples(method: string, path: string, op: Operation, authenticated: boolean): { lang: string; label: string; source: string }[] {
  const query = sampleQuery(op);
  const qs = query.length ? `?${query.map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&')}` : '';
  const url = `"$BASE${path.replace(/\{([^}]+)\}/g, (_m, n: string) => shellVar(n))}${qs}"`;
  const content = (((op.requestBody ?? {}) as Operation).content ?? {}) as Record<string, Operation>;
  const json = content['application/json'];
  const multipart = content['multipart/form-data'];
  const curl = [`curl -sS --fail-with-body${method === 'GET' ? '' : ` -X ${method}`} ${url}`];
  if (authenticated) curl.push(`-H "Authorization: Bearer $KEY"`);
  if (json) curl.push(`-H 'Content-Type: application/json'`, `-d ${shellQuote(JSON.stringify(json.example ?? {}))}`);
  if (multipart) {
    const fields = (((multipart.schema ?? {}) as Operation).properties ?? {}) as Record<string, Operation>;
    for (const [p, f] of Object.entries(fields)) {
      if (p === 'file') curl.push(`-F 'file=@receipt.pdf;type=application/pdf'`);
      else curl.push(`-F ${p}=${Array.isArray(f.enum) ? String(f.enum[0]) : shellVar(p)}`);
    }
  }
  const samples = [{ lang: 'Shell', label: 'curl', source: curl.join(' \\\n  ') }];
  const typed = path.startsWith('/api/') && authenticated && !multipart && (json !== undefined || method === 'GET' || method === 'DELETE' || !op.requestBody);
  const ok = (((op.responses ?? {}) as Operation)['200'] ?? {}) as Operation;
  const okTypes = Object.keys((ok.content ?? {}) as Record<string, unknown>);
  const binary = okTypes.length > 0 && !okTypes.includes('application/json');
  if (typed && !binary) {
    const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const params: string[] = [];
    if (pathParams.length) params.push(`path: { ${pathParams.map((n) => `${n}: process.env.${n.toUpperCase()}!`).join(', ')} }`);
    if (query.length) params.push(`query: ${JSON.stringify(Object.fromEntries(query))}`);
    const args: string[] = [];
    if (params.length) args.push(`params: { ${params.join(', ')} }`);
    if (json) args.push(`body: ${JSON.stringify(json.example ?? {}, null, 2).replace(/\n/g, '\n  ')}`);
    const call = `await api.${method}('${path}'${args.length ? `, {\n  ${args.join(',\n  ')},\n}` : ''});`;
    const source = [
      `import { Client } from '@acct/sdk';`,
      '',
      `const api = new Client({ apiKey: process.env.KEY!, baseUrl: process.env.BASE! });`,
      `const { data } = ${call}`,
    ].join('\n');
    samples.push({ lang: 'TypeScript', label: 'SDK', source });
  }
  return samples;
}

/** The introduction of the reference (info.description): quickstart, authentication, then the rules of every operation. */
export function introduction(rules: string): string {
  return [
    'Server-side accounting API for connected apps: customers, invoices, payments, payables, a double-entry ledger and its reports.',
    '',
    '## Quickstart',
    '',
    'Run the stack (`npm start`), make an organization and its keys with `npm run admin -- bootstrap` (it prints a `svc_test_…` and a `svc_live_…` key, once), then:',
    '',
    '```sh',
    'BASE=http://127.0.0.1:8080 KEY=svc_test_…',
    'curl -sS --fail-with-body "$BASE/api/v1/auth/check" -H "Authorization: Bearer $KEY"',
    `curl -sS --fail-with-body -X POST "$BASE/api/v1/customers" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \\`,
    `  -d '{"external_customer_id":"cus_1001","name":"Ada Lovelace"}'`,
    '```',
    '',
    'Every operation below shows its request with curl and with the TypeScript SDK (`@acct/sdk`, in clients/typescript of the repository). ' +
      '`docs/walkthrough.sh` runs a whole flow (bill, pay, void, payables, lock, upload, reports) against `BASE` with `KEY`; ' +
      '`docs/http/` holds every operation as a request for VS Code REST Client or the JetBrains HTTP Client. ' +
      'This document is served at /developers/openapi.yaml and /developers/openapi.json.',
    '',
    '## Authentication',
    '',
    'Every route under /api/v1 needs an API key as a bearer token: `Authorization: Bearer svc_test_…` (test environment) or `svc_live_…` (live). ' +
      'A key belongs to one connected app of one organization and sees only that organization and environment: a record of another answers 404. ' +
      'A missing, malformed, unknown or revoked key answers 401 unauthorized, and so does a rolled key past its expiry; a disabled connected app 403 forbidden. ' +
      'Keys are made, rolled and revoked in the dashboard or with the admin CLI (`npm run admin -- create-key`, `roll-key`, `revoke-key`) and shown only when made; ' +
      'a revoked key is refused on every gateway replica within a second. ' +
      'The public routes (this document, the reference page, share links, signed webhook inputs) take no key and are rate limited per client address.',
    '',
    '## Conventions',
    '',
    rules,
  ].join('\n');
}
