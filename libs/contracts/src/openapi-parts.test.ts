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
