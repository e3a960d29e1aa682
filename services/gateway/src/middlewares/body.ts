import { isUtf8 } from 'node:buffer';
import contentType from 'content-type';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { AppError, limits } from '@acct/contracts';
import type { Ctx, Middleware } from './state';

/** Maps a failure of the body reader (koa-body's: co-body, raw-body and inflation errors) to the envelope's vocabulary. */
export function bodyError(err: { status?: number; type?: string }, limit: number = limits.json_body_bytes_max): AppError {
  if (err.status === 413 || err.type === 'entity.too.large') {
    return new AppError('validation_failed', `The request body is over the ${limit}-byte limit.`, [], 413);
  }
  if (err.status === 415 || err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') {
    return new AppError('validation_failed', 'The body uses an unsupported encoding or charset.', [], 415);
  }
  return AppError.validation('The request body is not valid JSON.', [{ field: '/', issue: 'malformed_json', message: 'The body could not be parsed as JSON.' }]);
}

/** Whether a request carries a body: a Content-Length above 0, or chunked (RFC 9112 §6.3). */
const carriesBody = (ctx: Ctx): boolean => Number(ctx.get('content-length') || 0) > 0 || Boolean(ctx.get('transfer-encoding'));

/** The media type (lower-cased) and parameters (names lower-cased, values unquoted) of a Content-Type; undefined when it does not parse. */
function parsedContentType(header: string): contentType.ParsedMediaType | undefined {
  try {
    return contentType.parse(header);
  } catch {
    return undefined;
  }
}

/**
 * A request that carries a body must send it as `type`, the one media type its route declares
 * (contracts' requestMediaType; no other, a +json one neither), in UTF-8: no charset parameter, or
 * utf-8 (case-insensitive, maybe quoted). Anything else, or a Content-Type that does not parse, is
 * 415 (API-DECISIONS §1).
 */
export function requireMediaType(type: string): Middleware {
  const refuse = (message: string, detail: string) =>
    new AppError('validation_failed', message, [{ field: 'Content-Type', issue: 'unsupported_media_type', message: detail }], 415);
  return async (ctx, next) => {
    if (carriesBody(ctx)) {
      const sent = ctx.get('content-type');
      const parsed = parsedContentType(sent);
      if (parsed?.type !== type) throw refuse(`Send the body as ${type}.`, `Content-Type ${sent || '(none)'} is not supported.`);
      const charset = parsed.parameters.charset?.toLowerCase();
      if (charset !== undefined && charset !== 'utf-8') {
        throw refuse(`Send the body as ${type} in UTF-8.`, `Content-Type ${sent}: the charset ${charset} is not supported; send utf-8, or no charset.`);
      }
    }
    await next();
  };
}

/** The methods koa-body reads a body on: all its parsedMethods, as the route's chain decides whether to read one. */
const EVERY_METHOD = Object.values(HttpMethodEnum);
/** Content-Encoding spellings koa-body's inflation does not know, by the one it does (RFC 9110 §8.4.1.3). */
const ENCODING_ALIASES: Record<string, string> = { 'x-gzip': 'gzip' };
const STRICT_JSON_START = /^[ \t\n\r]*[[{]/;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const NO_BYTES = Buffer.alloc(0);

/**
 * koa-body's reader of a body's bytes up to `limit` bytes (413 past it, decompressed first; 415 for
 * a Content-Encoding other than gzip, deflate or br), onto ctx.req.body. The route's chain has
 * checked the media type already (requireMediaType), so any type is read; and as bytes, not text
 * (encoding '': co-body's text reader then hands over raw-body's Buffer), so that they are checked
 * as UTF-8 before decoding: a decoder would silently turn bad bytes into U+FFFD (and two different
 * byte strings into the same text). koa-body's own JSON reader decodes first, and refuses keys like
 * __proto__ that payloads may hold as data.
 */
function bytesReader(limit: number): (ctx: Ctx) => Promise<Buffer> {
  const read = koaBody({
    json: false,
    urlencoded: false,
    multipart: false, // multipart uploads stream to storage through busboy (uploads/documents.ts)
    text: true,
    textTypes: ['*/*'],
    encoding: '',
    textLimit: limit,
    parsedMethods: EVERY_METHOD,
    patchKoa: false,
    patchNode: true,
    onError: (err) => {
      throw bodyError(err as { status?: number; type?: string }, limit);
    },
  });
  const done = () => Promise.resolve();
  return async (ctx) => {
    const sent = ctx.req.headers['content-encoding'];
    if (sent !== undefined) {
      const encoding = sent.trim().toLowerCase();
      ctx.req.headers['content-encoding'] = ENCODING_ALIASES[encoding] ?? encoding;
    }
    await read(ctx, done);
    // No body read (a POST that carries none, e.g. /invoices/{id}/post): none was sent (RFC 9112 §6.3).
    return (ctx.req.body as unknown as Buffer | undefined) ?? NO_BYTES;
  };
}

const readJsonBytes = bytesReader(limits.json_body_bytes_max);
const readWebhookBytes = bytesReader(limits.webhook_body_bytes_max);

/**
 * Strict JSON (objects and arrays only) up to limits.json_body_bytes_max, into ctx.request.body.
 * The bytes must be valid UTF-8: they are checked before decoding.
 */
export const parseJson: Middleware = async (ctx, next) => {
  let bytes = await readJsonBytes(ctx);
  if (bytes.subarray(0, 3).equals(UTF8_BOM)) bytes = bytes.subarray(3);
  if (!isUtf8(bytes)) {
    throw AppError.validation('The request body is not valid UTF-8.', [{ field: '/', issue: 'invalid_encoding', message: 'JSON bodies must be UTF-8 encoded.' }]);
  }
  const text = bytes.toString('utf8');
  let parsed: unknown = {};
  if (text.trim() !== '') {
    if (!STRICT_JSON_START.test(text)) throw bodyError({});
    try {
      parsed = JSON.parse(text);
    } catch {
      throw bodyError({});
    }
  }
  ctx.request.body = parsed as Ctx['request']['body']; // koa-body types it JsonValue
  await next();
};

/**
 * A raw route's body (a signed webhook) up to limits.webhook_body_bytes_max, unparsed, into
 * ctx.state.raw: its service checks a signature over exactly these bytes before it reads them.
 */
export const readRaw: Middleware = async (ctx, next) => {
  ctx.state.raw = await readWebhookBytes(ctx);
  await next();
};
