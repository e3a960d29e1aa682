import { buildOpenApi } from './openapi';
import { typedBranches } from './openapi-parts';

describe('typedBranches', () => {
  it("gives each untyped anyOf/oneOf branch its parent's type, and copies rather than changes", () => {
    const s = { type: 'string', anyOf: [{ format: 'date' }, { format: 'date-time' }], properties: { x: { oneOf: [{ format: 'uuid' }] } } };
    expect(typedBranches(s)).toEqual({
      type: 'string',
      anyOf: [
        { type: 'string', format: 'date' },
        { type: 'string', format: 'date-time' },
      ],
      properties: { x: { oneOf: [{ format: 'uuid' }] } },
    });
    expect(s.anyOf[0]).toEqual({ format: 'date' });
    const refs = { type: 'object', anyOf: [{ $ref: '#/a' }, { type: 'null' }] };
    expect(typedBranches(refs)).toEqual(refs);
  });

  it('leaves no untyped branch under a typed schema in the document (received_at, created[gte] …)', () => {
    const untyped: string[] = [];
    const walk = (v: unknown, at: string): void => {
      if (!v || typeof v !== 'object') return;
      const o = v as Record<string, unknown>;
      for (const k of ['anyOf', 'oneOf'])
        if (typeof o.type === 'string' && Array.isArray(o[k]))
          for (const b of o[k] as Record<string, unknown>[]) if (b.type === undefined && b.$ref === undefined) untyped.push(at);
      for (const [k, x] of Object.entries(o)) walk(x, `${at}/${k}`);
    };
    walk(buildOpenApi(), '#');
    expect(untyped).toEqual([]);
  });
});

describe('the reference: request samples, introduction, servers, license', () => {
  const doc = buildOpenApi() as {
    info: { description: string; license: { identifier: string } };
    paths: Record<
      string,
      Record<
        string,
        { 'x-codeSamples'?: { lang: string; label: string; source: string }[]; security?: unknown[]; requestBody?: { content: Record<string, { example?: unknown }> } }
      >
    >;
  };
  const ops = Object.entries(doc.paths).flatMap(([p, item]) => Object.entries(item).map(([m, op]) => ({ path: p, method: m.toUpperCase(), op })));

  it('gives every operation a curl sample, and every JSON operation under /api/v1 an SDK sample', () => {
    const missing: string[] = [];
    for (const { path, method, op } of ops) {
      const samples = op['x-codeSamples'] ?? [];
      const curl = samples.find((s) => s.label === 'curl')?.source ?? '';
      if (!curl.startsWith(`curl -sS --fail-with-body${method === 'GET' ? '' : ` -X ${method}`} "$BASE${path.replace(/\{(\w+)\}/g, (_m, n: string) => `$${n.toUpperCase()}`)}`))
        missing.push(`${method} ${path} curl`);
      const json = op.requestBody?.content['application/json'];
      if (json?.example !== undefined && !curl.includes(JSON.stringify(json.example).slice(0, 40))) missing.push(`${method} ${path} curl body`);
      const authed = !(Array.isArray(op.security) && op.security.length === 0);
      const multipart = op.requestBody?.content['multipart/form-data'] !== undefined;
      const sdk = samples.find((s) => s.label === 'SDK')?.source;
      if (path.startsWith('/api/v1/') && authed && !multipart && !path.endsWith('/download') && !sdk?.includes(`await api.${method}('${path}'`))
        missing.push(`${method} ${path} SDK`);
    }
    expect(missing).toEqual([]);
  });

  it('opens with a quickstart and an authentication section, and has one license, the SDK’s', () => {
    expect(doc.info.description).toMatch(/^## Quickstart$/m);
    expect(doc.info.description).toMatch(/^## Authentication$/m);
    expect(doc.info.description).toContain('/developers/openapi.json');
    expect(doc.info.license.identifier).toBe('MIT');
  });
});
