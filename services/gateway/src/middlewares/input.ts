import { AppError, type ErrorDetail, limits } from '@acct/contracts';
import type { Middleware } from './state';

/** U+0000, or a UTF-16 surrogate without its partner (matched per code unit: no `u` flag). */
// eslint-disable-next-line no-control-regex -- U+0000 is what this looks for
const BAD_CHAR = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function badCharIssue(s: string): string | null {
  const m = BAD_CHAR.exec(s);
  if (!m) return null;
  return m[0] === '\u0000' ? 'a NUL character (U+0000)' : 'a lone UTF-16 surrogate (not valid Unicode)';
}

/** A key as it may be shown back: the characters it was refused for spelled as \uXXXX. */
function shown(key: string): string {
  return key.replace(new RegExp(BAD_CHAR.source, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** RFC 6901 escaping of one reference token. */
const token = (key: string) => shown(key).replace(/~/g, '~0').replace(/\//g, '~1');

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
const parameter = (path: string[]) => shown(path[0] ?? '');

/** Percent-decoding that refuses bytes that are not UTF-8 (querystring would make them U+FFFD). */
function strictDecode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

function invalid(message: string, detail: ErrorDetail): AppError {
  return AppError.validation(message, [detail]);
}

/**
 * Bad text anywhere in a request, refused with 400 before anything else reads it: path and query
 * must percent-decode to UTF-8; no string or key in path parameters, query or JSON body may hold a
 * NUL or a lone surrogate (Postgres cannot store the first; the second is not Unicode and would
 * become U+FFFD); a JSON body nests at most limits.json_depth_max levels (ajv and canonicalJson recurse).
 */
export function checkInput({ hasBody }: { hasBody: boolean }): Middleware {
  return async (ctx, next) => {
    if (strictDecode(ctx.path) === null) {
      throw invalid('The path is not valid percent-encoded UTF-8.', { field: 'path', issue: 'invalid_encoding', message: 'The path must percent-encode UTF-8 bytes.' });
    }
    for (const part of ctx.querystring ? ctx.querystring.split('&') : []) {
      const [rawName = '', ...rest] = part.split('=');
      const key = strictDecode(rawName.replace(/\+/g, ' '));
      if (key === null || strictDecode(rest.join('=').replace(/\+/g, ' ')) === null) {
        const field = key === null ? 'query' : shown(key);
        throw invalid('The query string is not valid percent-encoded UTF-8.', { field, issue: 'invalid_encoding', message: `${field} must percent-encode UTF-8 bytes.` });
      }
    }
    const inParams = findBadInput(ctx.params ?? {}, parameter, 2);
    if (inParams) throw invalid('The path has an invalid parameter.', inParams);
    const inQuery = findBadInput(ctx.query, parameter, 2);
    if (inQuery) throw invalid('The query string is invalid.', inQuery);
    if (hasBody) {
      const inBody = findBadInput(ctx.request.body, jsonPointer);
      if (inBody) throw invalid('The request body is invalid.', inBody);
    }
    await next();
  };
}
