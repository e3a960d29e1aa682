import fs from 'node:fs';
import path from 'node:path';
import { HTTP_DIR, SDK_SCHEMA_FILE, httpEnvironments, idVariable, idsAsVariables, renderHttpCollection, sampleOf, sdkFiles } from './sdk-files';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const STALE = 'is stale: run `npm run sdk:gen` and commit the result';

/** What is committed is what `npm run sdk:gen` writes from today's OpenAPI document. */
describe('sdk:gen', () => {
  let files: Map<string, string>;
  beforeAll(() => {
    files = sdkFiles();
  });

  it('the SDK types (clients/typescript/src/schema.ts) match the document', () => {
    const committed = fs.readFileSync(path.join(ROOT, SDK_SCHEMA_FILE), 'utf8');
    if (committed !== files.get(SDK_SCHEMA_FILE)) throw new Error(`${SDK_SCHEMA_FILE} ${STALE}`);
  });

  it('the .http collection (docs/http) matches the document, with no file of a tag that is gone', () => {
    const http = [...files.keys()].filter((f) => f.startsWith(`${HTTP_DIR}/`) && f.endsWith('.http'));
    const committed = fs
      .readdirSync(path.join(ROOT, HTTP_DIR))
      .filter((f) => f.endsWith('.http'))
      .map((f) => `${HTTP_DIR}/${f}`);
    if (JSON.stringify(committed.sort()) !== JSON.stringify([...http].sort())) throw new Error(`${HTTP_DIR} ${STALE} (files differ)`);
    for (const f of http) if (fs.readFileSync(path.join(ROOT, f), 'utf8') !== files.get(f)) throw new Error(`${f} ${STALE}`);
  });

  it('covers every operation of the document once, with its method and path', () => {
    const all = [...files.entries()]
      .filter(([f]) => f.endsWith('.http'))
      .map(([, c]) => c)
      .join('\n');
    const names = [...all.matchAll(/^# @name (\S+)$/gm)].map((m) => m[1]);
    expect(new Set(names).size).toBe(names.length);
    expect(all).toMatch(/^POST \{\{baseUrl\}\}\/api\/v1\/invoices\/\{\{invoice_id\}\}\/post$/m);
  });

  it('samples request bodies through $ref, enums and formats', () => {
    const doc = {
      components: {
        schemas: {
          Line: { type: 'object', required: ['n', 'd'], properties: { n: { type: 'integer', minimum: 1 }, d: { type: 'string', format: 'date' }, x: { type: 'string' } } },
        },
      },
    };
    expect(sampleOf(doc, { type: 'array', items: { $ref: '#/components/schemas/Line' } })).toEqual([{ n: 1, d: '2026-11-01' }]);
    expect(sampleOf(doc, { type: ['string', 'null'], enum: ['usd', 'eur'] })).toBe('usd');
    const col = renderHttpCollection({
      paths: { '/x/{id}': { post: { tags: ['X y'], operationId: 'makeX', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Line' } } } } } } },
      ...doc,
    });
    expect([...col.keys()]).toEqual(['docs/http/x-y.http']);
    expect(col.get('docs/http/x-y.http')).toContain(
      'POST {{baseUrl}}/x/{{x_id}}\nAuthorization: Bearer {{apiKey}}\nIdempotency-Key: makeX-{{$timestamp}}\nContent-Type: application/json\n\n{\n  "n": 1,',
    );
  });

  it("sends the document's example (the tests' own request) with its record ids as variables", () => {
    const id = '5e580945-ab91-4ba9-8fa5-610a6c1edc12';
    expect(idsAsVariables({ customer_id: id, lines: [{ invoice_id: id, amount_cents: 5 }], external_id: 'x', note: id })).toEqual({
      customer_id: '{{customer_id}}',
      lines: [{ invoice_id: '{{invoice_id}}', amount_cents: 5 }],
      external_id: 'x',
      note: id,
    });
    const col = renderHttpCollection({
      paths: {
        '/x': {
          post: { tags: ['X'], operationId: 'makeX', requestBody: { content: { 'application/json': { schema: { type: 'object' }, example: { customer_id: id, name: 'Ada' } } } } },
        },
      },
    });
    expect(col.get('docs/http/x.http')).toContain('{\n  "customer_id": "{{customer_id}}",\n  "name": "Ada"\n}');
  });

  it('sets no variable an environment should set: baseUrl and apiKey come from the shipped environments', () => {
    const http = [...files.entries()].filter(([f]) => f.endsWith('.http'));
    for (const [f, c] of http) expect({ f, set: c.match(/^@(baseUrl|apiKey)\b.*$/gm) }).toEqual({ f, set: null });
    const envs = httpEnvironments();
    const jetbrains = JSON.parse(envs.get(`${HTTP_DIR}/http-client.env.json`)!) as Record<string, Record<string, string>>;
    const vscode = JSON.parse(envs.get('.vscode/settings.json')!) as Record<string, Record<string, Record<string, string>>>;
    expect(jetbrains.local).toEqual({ baseUrl: 'http://127.0.0.1:8080', apiKey: expect.stringMatching(/^svc_test_/) as unknown });
    expect(vscode['rest-client.environmentVariables']).toEqual(jetbrains);
    for (const f of envs.keys()) if (fs.readFileSync(path.join(ROOT, f), 'utf8') !== envs.get(f)) throw new Error(`${f} ${STALE}`);
  });

  it('uses only dynamic variables both clients know, and ships the file the upload sends', () => {
    const all = [...files.values()].join('\n');
    const dynamic = new Set([...all.matchAll(/\{\{(\$[a-zA-Z.]+)/g)].map((m) => m[1]));
    expect([...dynamic]).toEqual(['$timestamp']);
    for (const m of all.matchAll(/^< \.\/(\S+)$/gm)) expect(fs.existsSync(path.join(ROOT, HTTP_DIR, m[1]!))).toBe(true);
    expect(
      fs
        .readFileSync(path.join(ROOT, HTTP_DIR, 'receipt.pdf'))
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  });

  it('chains record ids from the named create request of the same file', () => {
    expect(idVariable('/api/v1/vendor-payments/{id}', 'id')).toBe('vendor_payment_id');
    expect(idVariable('/api/v1/estimates/{id}/convert', 'id')).toBe('estimate_id');
    expect(idVariable('/portal/{token}', 'token')).toBe('token');
    const customers = files.get(`${HTTP_DIR}/customers.http`)!;
    expect(customers).toMatch(/^@customer_id = \{\{createCustomer\.response\.body\.\$\.data\.id\}\}$/m);
    expect(customers).toMatch(/^# @name createCustomer\n(#.*\n)*POST \{\{baseUrl\}\}\/api\/v1\/customers$/m);
    expect(customers).toContain('GET {{baseUrl}}/api/v1/customers/{{customer_id}}');
    expect(customers).not.toContain('{{id}}');
  });
});
