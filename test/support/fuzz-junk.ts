/** The hostile pieces the fuzz cases mix in: junk path segments, query pieces, content types, bodies, keys. */
import fc from 'fast-check';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const fakeKey = (env: string) => fc.array(fc.constantFrom(...BASE62), { minLength: 40, maxLength: 40 }).map((a) => `svc_${env}_${a.join('')}`);

/** Raw path segments: percent-encoded junk, traversal, overlong, an encoded lone surrogate. */
export const PATH_JUNK = [
  '%00',
  '%',
  '%zz',
  '%E0%A4%A',
  '%ED%A0%80',
  '%C0%AF',
  '..',
  '.',
  '%2e%2e',
  '%2F',
  '%252F',
  'a%20b',
  '%uD800',
  '%F0%9F%98%80',
  '',
  'x'.repeat(3000),
  '00000000-0000-0000-0000-000000000000%00',
  ';',
  '@',
  '%5B%5D',
  '%0A',
  '%EF%BB%BF',
];

/** Raw query pieces: hex, padded and scientific numbers, repeats, bracket syntax, scope fields, bad escapes. */
export const QUERY_JUNK = [
  'limit=0x10',
  'limit=%20%205',
  'limit=1e1',
  'limit=5.0',
  'limit=+5',
  'limit=-0',
  'limit=',
  'limit',
  'limit=1&limit=2',
  'limit[]=1',
  'limit[a]=1',
  'offset=99999999999999999999',
  'offset=9007199254740993',
  'limit=NaN',
  'limit=Infinity',
  'limit=%00',
  '%00=1',
  '=1',
  '&&&',
  'a=%',
  'a=%zz',
  'a=%E0%A4%A',
  'status=%ED%A0%80',
  'organization_id=00000000-0000-4000-8000-000000000000',
  'environment=live',
  'mode=live',
  'connected_app_id=x',
  'customer_id=%00',
  'processor=%00',
  `processor=${'x'.repeat(5000)}`,
  '__proto__=1',
  'constructor=1',
  'hasOwnProperty=1',
  'toString=x',
  'status=open%00',
  'processor=%ud800',
  'processor=%F0%9F%98%80',
  'limit=%EF%BC%95',
];

export const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset=nope',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'application/JSON',
  'application/json;;;',
  'application/json, text/plain',
  '*/*',
  'json',
  '',
];

/** Whole bodies that are not the object a route wants, or not JSON at all. */
export function junkBodies(): fc.Arbitrary<[string, string]> {
  const deep = (n: number, inside = 'name') => `{"${inside}":${'['.repeat(n)}${']'.repeat(n)}}`;
  const deepObj = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
  return fc.oneof(
    fc.constantFrom<[string, string]>(
      ['empty', ''],
      ['open-brace', '{'],
      ['bad-value', '{"a":}'],
      ['single-quotes', "{'a':1}"],
      ['trailing-comma', '{"a":1,}'],
      ['null', 'null'],
      ['true', 'true'],
      ['number', '1'],
      ['string', '"str"'],
      ['array', '[]'],
      ['array-of-object', '[{}]'],
      ['bom', '\ufeff{}'],
      ['two-objects', '{"a":1}{"b":2}'],
      ['whitespace', `${' '.repeat(1000)}{}`],
      ['proto', '{"__proto__":{"admin":true}}'],
      ['constructor', '{"constructor":{"prototype":{"x":1}}}'],
      ['nan', '{"a":NaN}'],
      ['comment', '{/* c */}'],
      ['nul-escape', '{"a":"\\u0000"}'],
      ['raw-control', '{"a":"\u0001\u0002"}'],
      ['bad-escape', '{"a":"\\x41"}'],
      ['big-array', `[${'0,'.repeat(200_000)}0]`],
    ),
    fc.constantFrom(10, 100, 1000, 1900, 2500, 3000, 5000, 20_000, 100_000).map((n): [string, string] => [`deep-${n}`, deep(n)]),
    fc.constantFrom(1000, 1900, 3000, 10_000).map((n): [string, string] => [`deep-object-${n}`, deepObj(n)]),
    fc
      .constantFrom(1000, 1900, 2500, 5000)
      .map((n): [string, string] => [
        `deep-payload-${n}`,
        `{"event_type":"customer.created","external_event_id":"deep-${n}-${Date.now()}","payload":{"a":${'['.repeat(n)}${']'.repeat(n)}}}`,
      ]),
    // Replaced by the case's own body with its first key repeated.
    fc.constant<[string, string]>(['duplicate-key', '{"a":1,"a":2}']),
    fc.constant<[string, string]>(['over-limit', `{"name":"${'x'.repeat(1024 * 1024 + 10)}"}`]),
  );
}

export const OTHER_METHODS = ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'GET', 'POST'];
