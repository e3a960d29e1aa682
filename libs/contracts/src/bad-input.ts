import type { ErrorDetail } from './errors';
import { limits } from './limits';

/** U+0000 as regex source: Postgres cannot store it, so no string or key of a request may hold it. */
const NUL = '\\u0000';

/** U+0000, or a UTF-16 surrogate without its partner (matched per code unit: no `u` flag). */
const BAD_CHAR = new RegExp(`${NUL}|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]`);

/**
 * The same rule as a JSON Schema pattern, for the OpenAPI document (openapi-schemas.ts): no U+0000.
 * A lone surrogate is refused too but is not Unicode, so no pattern names it.
 */
export const NO_NUL_PATTERN = `^[^${NUL}]*$`;

/** Any NUL or surrogate at all: a plain loop first (BAD_CHAR's lookarounds cost far more; most strings have neither). */
function suspect(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0 || (c >= 0xd800 && c <= 0xdfff)) return true;
  }
  return false;
}

function badCharIssue(s: string): string | null {
  if (!suspect(s)) return null;
  const m = BAD_CHAR.exec(s);
  if (!m) return null;
  return m[0] === '\u0000' ? 'a NUL character (U+0000)' : 'a lone UTF-16 surrogate (not valid Unicode)';
}

/** A key as it may be spelledKey back: the characters it was refused for spelled as \uXXXX. */
export function spelledKey(key: string): string {
  return key.replace(new RegExp(BAD_CHAR.source, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** RFC 6901 escaping of one reference token. */
const token = (key: string) => spelledKey(key).replace(/~/g, '~0').replace(/\//g, '~1');

/** What firstBad found: where (keys from the root, filled in on the way out) and what. */
interface Found {
  path: string[];
  /** A bad character, in a key (key: true) or a string; undefined: nested too deep. */
  what?: string;
  key?: boolean;
}

/**
 * Depth-first, children in order, an object's keys checked before its values (as a request's
 * check must be the same everywhere it runs). Recursion is bounded: it stops at depthMax.
 */
function firstBad(value: unknown, depth: number, depthMax: number): Found | null {
  if (typeof value === 'string') {
    const what = badCharIssue(value);
    return what ? { path: [], what } : null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth + 1 > depthMax) return { path: [] };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const f = firstBad(value[i], depth + 1, depthMax);
      if (f) {
        f.path.unshift(String(i));
        return f;
      }
    }
    return null;
  }
  const keys = Object.keys(value);
  for (let i = keys.length - 1; i >= 0; i--) {
    const what = badCharIssue(keys[i]!);
    if (what) return { path: [keys[i]!], what, key: true };
  }
  for (const key of keys) {
    const f = firstBad((value as Record<string, unknown>)[key], depth + 1, depthMax);
    if (f) {
      f.path.unshift(key);
      return f;
    }
  }
  return null;
}

/**
 * The first problem in a parsed value: a string or key with a NUL or a lone surrogate, or
 * containers nested deeper than depthMax (checked before descending, so a deep value cannot
 * overflow the stack here). `name` turns a path of keys into the field named in the error (a JSON
 * pointer for bodies, the parameter name for query and path). Allocates only on a find: it runs
 * on every request, at the gateway and again in the service (rpc-request.ts).
 */
export function findBadInput(root: unknown, name: (path: string[]) => string, depthMax: number = limits.json_depth_max): ErrorDetail | null {
  const f = firstBad(root, 0, depthMax);
  if (!f) return null;
  const field = name(f.path);
  if (f.what === undefined) return { field, issue: 'too_deep', message: `JSON may nest objects and arrays at most ${depthMax} levels deep.` };
  return { field, issue: 'invalid_character', message: f.key ? `The key ${field} contains ${f.what}.` : `${field} contains ${f.what}.` };
}

/** The JSON pointer of a path of keys (RFC 6901), bad characters spelled out. */
export const jsonPointer = (path: string[]) => (path.length ? path.map((k) => `/${token(k)}`).join('') : '/');
/** The name of a path or query parameter as an error names it: its key, bad characters spelled out. */
export const parameterName = (path: string[]) => spelledKey(path[0] ?? '');
