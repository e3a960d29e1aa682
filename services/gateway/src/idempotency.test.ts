import { canonicalJson, fingerprint } from './idempotency';

describe('canonicalJson', () => {
  it('sorts object keys, so key order does not matter', () => {
    expect(canonicalJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
    expect(canonicalJson({ b: 1, a: 2 })).toBe(canonicalJson({ a: 2, b: 1 }));
  });

  it('sorts keys at every depth, inside arrays too, and keeps array order', () => {
    const x = { z: [{ d: 1, c: [3, { f: null, e: 'x' }] }], y: { b: true, a: false } };
    const y = { y: { a: false, b: true }, z: [{ c: [3, { e: 'x', f: null }], d: 1 }] };
    expect(canonicalJson(x)).toBe('{"y":{"a":false,"b":true},"z":[{"c":[3,{"e":"x","f":null}],"d":1}]}');
    expect(canonicalJson(x)).toBe(canonicalJson(y));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it('is valid JSON equal to the input', () => {
    const v = { name: 'Acme "Ltd"\n', n: -1.5, list: [], o: {}, u: 'é✓' };
    expect(JSON.parse(canonicalJson(v))).toEqual(v);
  });

  it('escapes keys and strings, so content cannot be confused with structure', () => {
    expect(canonicalJson({ 'a":1,"b': 2 })).not.toBe(canonicalJson({ a: 1, b: 2 }));
    expect(canonicalJson({ a: '1' })).not.toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson({ a: null })).not.toBe(canonicalJson({}));
  });

  it('renders scalars and null like JSON, and undefined as null', () => {
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson('s')).toBe('"s"');
    expect(canonicalJson(0)).toBe('0');
    expect(canonicalJson(false)).toBe('false');
    expect(canonicalJson([null, undefined])).toBe('[null,null]');
  });
});

describe('fingerprint', () => {
  const body = { external_customer_id: 'c-1', name: 'Acme', email: 'a@b.c' };
  const fp = fingerprint('POST', '/api/v1/customers', body);

  it('is a sha256 hex digest and deterministic', () => {
    expect(fp).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint('POST', '/api/v1/customers', { ...body })).toBe(fp);
  });

  it('does not depend on key order', () => {
    expect(fingerprint('POST', '/api/v1/customers', { email: 'a@b.c', name: 'Acme', external_customer_id: 'c-1' })).toBe(fp);
    expect(fingerprint('POST', '/p', { o: { y: 1, x: [{ b: 1, a: 2 }] } })).toBe(fingerprint('POST', '/p', { o: { x: [{ a: 2, b: 1 }], y: 1 } }));
  });

  it('changes when the body, method or path changes', () => {
    const others = [
      fingerprint('POST', '/api/v1/customers', { ...body, name: 'Acme Inc' }),
      fingerprint('POST', '/api/v1/customers', { external_customer_id: 'c-1', name: 'Acme' }),
      fingerprint('PUT', '/api/v1/customers', body),
      fingerprint('POST', '/api/v1/vendors', body),
      fingerprint('POST', '/api/v1/customers/', body),
    ];
    for (const o of others) expect(o).not.toBe(fp);
    expect(new Set(others).size).toBe(others.length);
  });

  it('changes with nested content and array order', () => {
    const a = fingerprint('POST', '/p', { lines: [{ amount: 1 }, { amount: 2 }] });
    expect(fingerprint('POST', '/p', { lines: [{ amount: 2 }, { amount: 1 }] })).not.toBe(a);
    expect(fingerprint('POST', '/p', { lines: [{ amount: 1 }, { amount: 3 }] })).not.toBe(a);
  });

  it('gives a stable fingerprint for a missing body, the same for undefined and null', () => {
    const none = fingerprint('POST', '/p', undefined);
    expect(none).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint('POST', '/p', undefined)).toBe(none);
    expect(fingerprint('POST', '/p', null)).toBe(none);
    expect(fingerprint('POST', '/p', {})).not.toBe(none);
    expect(fingerprint('POST', '/q', null)).not.toBe(none);
  });

  it('keeps method, path and body apart (no ambiguity at the separators)', () => {
    expect(fingerprint('POST', '/a\nb', 1)).not.toBe(fingerprint('POST', '/a', 'b\n1'));
  });
});
