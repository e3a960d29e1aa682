import type { ErrorDetail } from './errors';
import { limits } from './limits';

/** U+0000, or a UTF-16 surrogate without its partner (matched per code unit: no `u` flag). */
// eslint-disable-next-line no-control-regex -- U+0000 is what this looks for
const BAD_CHAR = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function badCharIssue(s: string): string | null {
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

/**
 * The first problem in a parsed value, walked iteratively (a deep value must not overflow the
 * stack here, before the depth limit has refused it): a string or key with a NUL or a lone
 * surrogate, or containers nested deeper than depthMax. `name` turns a path of keys into the
 * field named in the error (a JSON pointer for bodies, the parameter name for query and path).
 */
export function findBadInput(root: unknown, name: (path: string[]) => string, depthMax: number = limits.json_depth_max): ErrorDetail | null {
  const stack: Array<{ value: unknown; path: string[]; depth: number }> = [{ value: root, path: [], depth: 0 }];
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const what = badCharIssue(value);
      if (what) return { field: name(path), issue: 'invalid_character', message: `${name(path)} contains ${what}.` };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth + 1 > depthMax) {
      return { field: name(path), issue: 'too_deep', message: `JSON may nest objects and arrays at most ${depthMax} levels deep.` };
    }
    const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      const what = badCharIssue(key);
      if (what) {
        const field = name([...path, key]);
        return { field, issue: 'invalid_character', message: `The key ${field} contains ${what}.` };
      }
      stack.push({ value: child, path: [...path, key], depth: depth + 1 });
    }
  }
  return null;
}

/** The JSON pointer of a path of keys (RFC 6901), bad characters spelled out. */
export const jsonPointer = (path: string[]) => (path.length ? path.map((k) => `/${token(k)}`).join('') : '/');
/** The name of a path or query parameter as an error names it: its key, bad characters spelled out. */
export const parameterName = (path: string[]) => spelledKey(path[0] ?? '');
