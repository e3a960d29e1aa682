import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { compileBody, schemas } from '@acct/contracts';
import { type Keys, bootstrapOrg, client, type E2E, startE2E } from './harness';
import { TINY_PNG, multipart } from './documents.helpers';
import { type Api, E2E_ENV, createCustomer, expectError, expectSchema, expectStatus, utcDate } from './receivables.helpers';

const validDocument = compileBody(schemas.documents.documentResponse);
const validDocumentList = compileBody(schemas.documents.documentListResponse);
const validLink = compileBody(schemas.documents.documentLinkResponse);
const validInvoiceDefaults = compileBody(schemas.documents.invoiceDefaultsResponse);

const MAX = 1024 * 1024; // the stack's UPLOAD_MAX_BYTES: small, so the limit test stays quick

/** The smallest files whose magic numbers file-type recognizes, one per allowed type. */
const FILES: Array<[string, string, Buffer, string]> = [
  ['PDF', 'a.pdf', Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n'), 'application/pdf'],
  ['PNG', 'a.png', TINY_PNG, 'image/png'],
  ['JPEG', 'a.jpg', Buffer.concat([Buffer.from('ffd8ffe000104a46494600', 'hex'), randomBytes(64)]), 'image/jpeg'],
  ['WEBP', 'a.webp', Buffer.concat([Buffer.from('RIFF'), Buffer.from('24000000', 'hex'), Buffer.from('WEBPVP8 '), randomBytes(64)]), 'image/webp'],
  [
    'HEIC',
    'a.heic',
    Buffer.concat([Buffer.from('00000018', 'hex'), Buffer.from('ftypheic'), Buffer.from('00000000', 'hex'), Buffer.from('mif1heic'), randomBytes(64)]),
    'image/heic',
  ],
  ['GIF', 'a.gif', Buffer.concat([Buffer.from('GIF89a'), randomBytes(64)]), 'image/gif'],
  ['CSV', 'a.csv', Buffer.from('date,amount\n2026-01-01,12.50\n'), 'text/csv'],
  ['plain text', 'a.txt', Buffer.from('Receipt from the café: 12,50 €\n'), 'text/plain'],
];

describe('e2e: documents and settings through the gateway', () => {
  let e2e: E2E;
  let keys: Keys;
  let other: Keys;
  let api: Api;
  let otherApi: Api;
  const spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-spool-'));

  beforeAll(async () => {
    e2e = await startE2E({ ...E2E_ENV, UPLOAD_MAX_BYTES: String(MAX), UPLOAD_SPOOL_DIR: spoolDir });
    keys = await bootstrapOrg(e2e.databaseUrl, 'Documents org');
    other = await bootstrapOrg(e2e.databaseUrl, 'Other org');
    api = client(e2e.base, keys.test_key);
    otherApi = client(e2e.base, other.test_key);
  });
  afterAll(async () => {
    await e2e?.stop();
    fs.rmSync(spoolDir, { recursive: true, force: true });
  });

  async function upload(
    file: { name: string; type: string; bytes: Buffer } | null,
    fields: Record<string, string> = { document_type: 'receipt', source: 'e2e' },
    key = keys.test_key,
    headers: Record<string, string> = {},
  ) {
    const { body, contentType } = multipart(file, fields);
    const res = await fetch(`${e2e.base}/api/v1/documents`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': contentType, ...headers }, body });
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json, text };
  }

  /** Objects in the stack's s3rver folder, and documents rows the API lists. */
  function storedObjects(): number {
    const dir = e2e.stack.s3!.dir;
    const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [e.name]));
    return walk(dir).filter((f) => f.endsWith('._S3rver_object')).length;
  }
  async function listedCount(): Promise<number> {
    let n = 0;
    for (const a of [api, otherApi]) n += (await a('GET', '/api/v1/documents?limit=100')).json.data.length;
    return n;
  }

  it.each(FILES)('stores a %s upload with the sniffed type, size and SHA-256; the download is byte for byte the same', async (_label, name, bytes, type) => {
    const r = await upload({ name, type, bytes });
    expectStatus(r, 201);
    expectSchema(validDocument, r.json);
    expect(r.json.data).toMatchObject({ file_name: name, document_type: 'receipt', source: 'e2e', status: 'uploaded', content_type: type, size_bytes: bytes.length, links: [] });
    expect(r.json.data.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    const d = await fetch(`${e2e.base}/api/v1/documents/${r.json.data.id}/download`, { headers: { authorization: `Bearer ${keys.test_key}` } });
    expect(d.status).toBe(200);
    expect(Buffer.from(await d.arrayBuffer()).equals(bytes)).toBe(true);
    expect(d.headers.get('content-type')).toContain(type);
    expect(d.headers.get('x-content-type-options')).toBe('nosniff');
    expect(d.headers.get('content-disposition')).toBe(`attachment; filename="${name}"`);
    expect(d.headers.get('etag')).toBe(`"${r.json.data.sha256}"`);
    expect(d.headers.get('digest')).toBe(`sha-256=${createHash('sha256').update(bytes).digest('base64')}`);
  });

  it('downloads a 900 KiB random file byte for byte; its SHA-256 is in ETag', async () => {
    const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(900 * 1024)]);
    const r = await upload({ name: 'big.pdf', type: 'application/pdf', bytes });
    expectStatus(r, 201);
    const d = await fetch(`${e2e.base}/api/v1/documents/${r.json.data.id}/download`, { headers: { authorization: `Bearer ${keys.test_key}` } });
    const got = Buffer.from(await d.arrayBuffer());
    expect(got.length).toBe(bytes.length);
    expect(got.equals(bytes)).toBe(true);
    expect(Number(d.headers.get('content-length'))).toBe(bytes.length);
  });

  it('marks needs_review when document_type is missing or other, or the declared type disagrees with the bytes', async () => {
    const pdf = FILES[0]![2];
    expect((await upload({ name: 'a.pdf', type: 'application/pdf', bytes: pdf }, {})).json.data.status).toBe('needs_review');
    expect((await upload({ name: 'a.pdf', type: 'application/pdf', bytes: pdf }, { document_type: 'other' })).json.data.status).toBe('needs_review');
    const lying = await upload({ name: 'a.png', type: 'image/png', bytes: pdf }, { document_type: 'receipt' });
    expect(lying.json.data).toMatchObject({ status: 'needs_review', content_type: 'application/pdf' });
  });

  it('refuses disallowed types with 415 and keeps nothing', async () => {
    const before = [storedObjects(), await listedCount()];
    const bad: Array<[string, Buffer]> = [
      ['zip', Buffer.concat([Buffer.from('504b0304', 'hex'), randomBytes(200)])],
      ['exe', Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200)])],
      ['random', randomBytes(4096)],
      ['nul text', Buffer.from('hello\u0000world')],
    ];
    for (const [name, bytes] of bad) {
      const r = await upload({ name: `${name}.pdf`, type: 'application/pdf', bytes });
      expect({ name, status: r.status }).toEqual({ name, status: 415 });
      expect(r.json.error).toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ field: 'file', issue: 'unsupported_type' })] });
    }
    expect([storedObjects(), await listedCount()]).toEqual(before);
  });

  it('refuses a file over the limit with 413 and keeps nothing; a body that is not multipart is 415', async () => {
    const before = [storedObjects(), await listedCount()];
    const r = await upload({ name: 'big.pdf', type: 'application/pdf', bytes: Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(MAX)]) });
    expectError(r, 413, 'validation_failed');
    expect(r.json.error.details[0]).toMatchObject({ field: 'file', issue: 'too_large' });
    const exact = await upload({ name: 'exact.txt', type: 'text/plain', bytes: Buffer.alloc(MAX, 'a') });
    expectStatus(exact, 201);
    expect(exact.json.data.size_bytes).toBe(MAX);
    expect([storedObjects(), await listedCount()]).toEqual([before[0]! + 1, before[1]! + 1]);
    expectError(await api('POST', '/api/v1/documents', { file: 'x' }), 415, 'validation_failed');
    expectError(await upload(null), 400, 'validation_failed');
    expectError(await upload({ name: 'a.pdf', type: 'application/pdf', bytes: FILES[0]![2] }, { document_type: 'banana' }), 400, 'validation_failed');
    expectError(await upload({ name: 'a.pdf', type: 'application/pdf', bytes: FILES[0]![2] }, { organization_id: randomUUID() }), 400, 'trusted_scope_field_not_allowed');
    expectError(await upload({ name: 'a.pdf', type: 'application/pdf', bytes: FILES[0]![2] }, { color: 'red' }), 400, 'validation_failed');
    const nul = await upload({ name: 'a.pdf', type: 'application/pdf', bytes: FILES[0]![2] }, { document_type: 'receipt', source: 'e2e\u0000x' });
    expectError(nul, 400, 'validation_failed');
    expect(nul.json.error.details[0]).toMatchObject({ field: 'source', issue: 'invalid_character' });
    expect(fs.readdirSync(spoolDir)).toEqual([]);
  });

  it('sanitizes hostile file names (display only) and encodes them in Content-Disposition (RFC 6266)', async () => {
    const cases: Array<[string, string]> = [
      ['../../etc/passwd', 'passwd'],
      ['..\\..\\windows\\system.ini', 'system.ini'],
      ['a\u0000b.txt', 'ab.txt'],
      ['invoice\u202Efdp.exe', 'invoicefdp.exe'],
      ['x'.repeat(300), 'x'.repeat(255)],
      ['...', 'file'],
    ];
    for (const [raw, shown] of cases) {
      const r = await upload({ name: raw, type: 'text/plain', bytes: Buffer.from('hello') });
      expect({ raw, status: r.status, name: r.json?.data?.file_name }).toEqual({ raw, status: 201, name: shown });
    }
    const r = await upload({ name: 'reçu 2026 “final”.txt', type: 'text/plain', bytes: Buffer.from('hello') });
    expect(r.json.data.file_name).toBe('reçu 2026 “final”.txt');
    const d = await fetch(`${e2e.base}/api/v1/documents/${r.json.data.id}/download`, { headers: { authorization: `Bearer ${keys.test_key}` } });
    // An ISO-8859-1 fallback (characters outside it become ?) and the exact UTF-8 name in filename*.
    expect(d.headers.get('content-disposition')).toBe(`attachment; filename="reçu 2026 ?final?.txt"; filename*=UTF-8''re%C3%A7u%202026%20%E2%80%9Cfinal%E2%80%9D.txt`);
  });

  it('leaves no row, object or spool file when the client cuts an upload off half-way', async () => {
    const before = [storedObjects(), await listedCount()];
    const { body, contentType } = multipart({ name: 'cut.pdf', type: 'application/pdf', bytes: Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(600 * 1024)]) });
    const url = new URL(`${e2e.base}/api/v1/documents`);
    await new Promise<void>((resolve) => {
      const req = http.request({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { authorization: `Bearer ${keys.test_key}`, 'content-type': contentType, 'content-length': body.length },
      });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write(body.subarray(0, body.length / 2), () => setImmediate(() => req.destroy()));
    });
    // The gateway notices the abort on its next read: wait until the spool folder is empty again.
    for (let i = 0; i < 100 && fs.readdirSync(spoolDir).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(fs.readdirSync(spoolDir)).toEqual([]);
    expect([storedObjects(), await listedCount()]).toEqual(before);
    // The gateway still serves.
    expectStatus(await upload({ name: 'after.txt', type: 'text/plain', bytes: Buffer.from('ok') }), 201);
  });

  it('replays an upload with the same Idempotency-Key', async () => {
    const key = randomUUID();
    const bytes = Buffer.from('same file');
    const first = await upload({ name: 'idem.txt', type: 'text/plain', bytes }, { document_type: 'receipt' }, keys.test_key, { 'idempotency-key': key });
    expectStatus(first, 201);
    const again = await upload({ name: 'idem.txt', type: 'text/plain', bytes }, { document_type: 'receipt' }, keys.test_key, { 'idempotency-key': key });
    expectStatus(again, 200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.data).toEqual(first.json.data);
  });

  it('lists and gets documents with filters, scoped to the organization', async () => {
    const mine = await upload({ name: 'contract.pdf', type: 'application/pdf', bytes: FILES[0]![2] }, { document_type: 'contract' });
    const page = await api('GET', '/api/v1/documents?document_type=contract');
    expectStatus(page, 200);
    expectSchema(validDocumentList, page.json);
    expect(page.json.data.map((d: any) => d.id)).toEqual([mine.json.data.id]);
    expect(page.json.documents).toEqual(page.json.data);
    expect((await api('GET', '/api/v1/documents?status=needs_review')).json.data.every((d: any) => d.status === 'needs_review')).toBe(true);
    expectError(await api('GET', '/api/v1/documents?status=lost'), 400, 'validation_failed');
    const got = await api('GET', `/api/v1/documents/${mine.json.data.id}`);
    expectSchema(validDocument, got.json);
    expect(got.json.data).toEqual(mine.json.data);
    expectError(await otherApi('GET', `/api/v1/documents/${mine.json.data.id}`), 404, 'not_found');
    expectError(await otherApi('GET', `/api/v1/documents/${mine.json.data.id}/download`), 404, 'not_found');
    expectError(await api('GET', `/api/v1/documents/${randomUUID()}`), 404, 'not_found');
    expect(JSON.stringify(got.json)).not.toContain(keys.organization_id);
  });

  it('links a document to a record of its organization (404 for another organization’s record) and lists its links', async () => {
    const doc = (await upload({ name: 'r.pdf', type: 'application/pdf', bytes: FILES[0]![2] })).json.data;
    const customerId = await createCustomer(api, 'Linked customer');
    const foreignCustomer = await createCustomer(otherApi, 'Foreign customer');
    const r = await api('POST', `/api/v1/documents/${doc.id}/link`, { record_type: 'customer', record_id: customerId });
    expectStatus(r, 200);
    expect(r.headers.get('idempotent-replayed')).toBeNull();
    expectSchema(validLink, r.json);
    expect(r.json.data).toEqual({ id: doc.id, linked_record_id: customerId });
    expect(r.json.action).toEqual({ type: 'linked', status: 'completed' });
    expect(r.json.document.links).toEqual([{ record_type: 'customer', record_id: customerId, linked_at: expect.any(String) }]);
    // Again: no second link; a repeated action answers the current state, marked replayed.
    const again = await api('POST', `/api/v1/documents/${doc.id}/link`, { record_type: 'customer', record_id: customerId });
    expectStatus(again, 200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.document.links).toEqual(r.json.document.links);
    expect((await api('GET', `/api/v1/documents/${doc.id}`)).json.data.links).toHaveLength(1);
    expectError(await api('POST', `/api/v1/documents/${doc.id}/link`, { record_type: 'customer', record_id: foreignCustomer }), 404, 'not_found');
    for (const t of ['invoice', 'estimate', 'vendor', 'bill'])
      expectError(await api('POST', `/api/v1/documents/${doc.id}/link`, { record_type: t, record_id: randomUUID() }), 404, 'not_found');
    expectError(await api('POST', `/api/v1/documents/${doc.id}/link`, { record_type: 'payment', record_id: randomUUID() }), 400, 'validation_failed');
    expectError(await otherApi('POST', `/api/v1/documents/${doc.id}/link`, { record_type: 'customer', record_id: foreignCustomer }), 404, 'not_found');
    const byRecord = await api('GET', `/api/v1/documents?linked_record_id=${customerId}`);
    expect(byRecord.json.data.map((d: any) => d.id)).toEqual([doc.id]);
    // Linked on upload, to a record that must exist.
    const withLink = await upload({ name: 'w.pdf', type: 'application/pdf', bytes: FILES[0]![2] }, { document_type: 'receipt', record_type: 'customer', record_id: customerId });
    expectStatus(withLink, 201);
    expect(withLink.json.data.linked_record_id).toBe(customerId);
    expectError(await upload({ name: 'w.pdf', type: 'application/pdf', bytes: FILES[0]![2] }, { record_type: 'customer', record_id: foreignCustomer }), 404, 'not_found');
  });

  it('keeps settings per organization and environment; validates them', async () => {
    const caps = await api('GET', '/api/v1/settings/capabilities');
    expect(caps.json.data).toEqual({ document_branding: true, invoice_defaults: true, estimate_defaults: true });
    const inv = await api('GET', '/api/v1/settings/invoice-defaults');
    expectSchema(validInvoiceDefaults, inv.json);
    expect(inv.json.data).toEqual({ payment_terms_days: 30, default_terms: null, default_memo: null, footer: null });
    const put = await api('PUT', '/api/v1/settings/invoice-defaults', { payment_terms_days: 15, default_terms: 'Net 15', default_memo: 'Thanks' });
    expectStatus(put, 200);
    expect(put.json.data).toEqual({ payment_terms_days: 15, default_terms: 'Net 15', default_memo: 'Thanks', footer: null });
    expect((await api('PUT', '/api/v1/settings/invoice-defaults', { footer: 'Bye' })).json.data).toMatchObject({ payment_terms_days: 15, footer: 'Bye' });
    expect((await otherApi('GET', '/api/v1/settings/invoice-defaults')).json.data.payment_terms_days).toBe(30);
    expect((await client(e2e.base, keys.live_key)('GET', '/api/v1/settings/invoice-defaults')).json.data.payment_terms_days).toBe(30);
    expectError(await api('PUT', '/api/v1/settings/invoice-defaults', { payment_terms_days: -1 }), 400, 'validation_failed');
    expectError(await api('PUT', '/api/v1/settings/invoice-defaults', { payment_terms_days: 366 }), 400, 'validation_failed');
    expectError(await api('PUT', '/api/v1/settings/estimate-defaults', { validity_days: 0 }), 400, 'validation_failed');
    expect((await api('PUT', '/api/v1/settings/estimate-defaults', { validity_days: 14, default_terms: 'Valid 14 days' })).json.data).toEqual({
      validity_days: 14,
      default_terms: 'Valid 14 days',
      default_memo: null,
    });
    expectError(await api('PUT', '/api/v1/settings/document-branding', { primary_color: 'red' }), 400, 'validation_failed');
    expectError(await api('PUT', '/api/v1/settings/document-branding', { logo_document_id: randomUUID() }), 404, 'not_found');
    const pdf = (await upload({ name: 'logo.pdf', type: 'application/pdf', bytes: FILES[0]![2] })).json.data;
    expectError(await api('PUT', '/api/v1/settings/document-branding', { logo_document_id: pdf.id }), 400, 'validation_failed');
    const png = (await upload({ name: 'logo.png', type: 'image/png', bytes: FILES[1]![2] }, { document_type: 'logo' })).json.data;
    const b = await api('PUT', '/api/v1/settings/document-branding', { business_name: 'Acme', primary_color: '#112233', logo_document_id: png.id, payment_instructions: 'IBAN X' });
    expectStatus(b, 200);
    expect(b.json.data).toEqual({ business_name: 'Acme', primary_color: '#112233', logo_document_id: png.id, payment_instructions: 'IBAN X' });
    expect((await api('GET', '/api/v1/settings/document-branding')).json.data).toEqual(b.json.data);
    expectError(await otherApi('PUT', '/api/v1/settings/document-branding', { logo_document_id: png.id }), 404, 'not_found');
  });

  it('converts an estimate with the invoice defaults’ payment terms; 503 while documents is down, then converts', async () => {
    const other2 = client(e2e.base, (await bootstrapOrg(e2e.databaseUrl, 'Terms org')).test_key);
    expectStatus(await other2('PUT', '/api/v1/settings/invoice-defaults', { payment_terms_days: 7 }), 200);
    const customerId = await createCustomer(other2, 'Terms customer');
    const accepted = async () => {
      const est = await other2('POST', '/api/v1/estimates', {
        external_estimate_id: randomUUID(),
        customer_id: customerId,
        issue_date: '2026-04-01',
        line_items: [{ description: 'x', quantity: 1, unit_amount_cents: 100 }],
      });
      expectStatus(await other2('POST', `/api/v1/estimates/${est.json.data.id}/status`, { status: 'accepted' }), 200);
      return est.json.data.id as string;
    };
    const first = await accepted();
    const conv = await other2('POST', `/api/v1/estimates/${first}/convert`, { issue_date: '2026-04-01' });
    expectStatus(conv, 200);
    expect((await other2('GET', `/api/v1/invoices/${conv.json.data.invoice_id}`)).json.data.due_date).toBe('2026-04-08');

    const second = await accepted();
    expect(await e2e.stack.stopService('documents')).toBe(0);
    try {
      const down = await other2('POST', `/api/v1/estimates/${second}/convert`, { issue_date: '2026-04-01' });
      expectError(down, 503, 'service_unavailable');
      expect((await other2('GET', `/api/v1/estimates/${second}`)).json.data.status).toBe('accepted');
      // A due date given needs no defaults.
      const given = await accepted();
      expectStatus(await other2('POST', `/api/v1/estimates/${given}/convert`, { issue_date: '2026-04-01', due_date: '2026-05-01' }), 200);
    } finally {
      await e2e.stack.startService('documents');
    }
    const retried = await other2('POST', `/api/v1/estimates/${second}/convert`, { issue_date: '2026-04-01' });
    expectStatus(retried, 200);
    expect((await other2('GET', `/api/v1/invoices/${retried.json.data.invoice_id}`)).json.data.due_date).toBe(utcDate(new Date('2026-04-01T00:00:00Z'), 7));
  });

  it('answers 503 while S3 is down, stores nothing half-written, and recovers', async () => {
    const kept = (await upload({ name: 'kept.txt', type: 'text/plain', bytes: Buffer.from('kept') })).json.data;
    const before = [storedObjects(), await listedCount()];
    await e2e.stack.s3!.stop();
    try {
      const up = await upload({ name: 'down.txt', type: 'text/plain', bytes: Buffer.from('down') });
      expectError(up, 503, 'service_unavailable');
      expect(up.headers.get('retry-after')).toBeTruthy();
      expectError(await api('GET', `/api/v1/documents/${kept.id}/download`), 503, 'service_unavailable');
      const ready = await fetch(`http://127.0.0.1:${e2e.stack.services.get('documents')!.opsPort}/readyz`);
      expect(ready.status).toBe(503);
      // Metadata reads do not need S3.
      expectStatus(await api('GET', `/api/v1/documents/${kept.id}`), 200);
    } finally {
      await e2e.stack.s3!.start();
    }
    expect([storedObjects(), await listedCount()]).toEqual(before);
    expect(fs.readdirSync(spoolDir)).toEqual([]);
    const back = await fetch(`${e2e.base}/api/v1/documents/${kept.id}/download`, { headers: { authorization: `Bearer ${keys.test_key}` } });
    expect(await back.text()).toBe('kept');
  });
});
