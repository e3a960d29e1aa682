import { AppError, type ErrorDetail, findBadInput, jsonPointer, parameterName as parameter, spelledKey } from '@acct/contracts';
import type { Middleware } from './state';

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
        const field = key === null ? 'query' : spelledKey(key);
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
