import { isUtf8 } from 'node:buffer';
import type { Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import contentType from 'content-type';
import { AppError, isAppError, limits } from '@acct/contracts';
import type { Ctx, Middleware } from './state';

/** Maps a failure of the JSON body parser (raw-body / co-body errors) to the envelope's vocabulary. */
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

declare module 'koa' {
  interface Request {
    /** The parsed JSON body (parseJson), before validation. */
    body?: unknown;
  }
}

const DECODERS: Record<string, () => Transform> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};
const STRICT_JSON_START = /^[ \t\n\r]*[[{]/;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const NO_BYTES = Buffer.alloc(0);

/** The body's bytes, decompressed, up to `limit` bytes (413 past it, 415 for an unknown Content-Encoding). */
async function readBytes(ctx: Ctx, limit: number): Promise<Buffer> {
  const encoding = (ctx.get('content-encoding') || 'identity').trim().toLowerCase();
  let source: Readable = ctx.req;
  if (encoding !== 'identity') {
    const decoder = DECODERS[encoding];
    if (!decoder) throw bodyError({ status: 415, type: 'encoding.unsupported' });
    source = ctx.req.pipe(decoder());
  } else {
    const length = Number(ctx.get('content-length') || 0);
    if (length > limit) throw bodyError({ status: 413 }, limit);
    // No body to read (a POST that carries none, e.g. /invoices/{id}/post): a request with neither a
    // length above 0 nor chunked transfer has none (RFC 9112 §6.3), and iterating its empty stream
    // cost the gateway an async iterator and its listeners per request.
    if (length === 0 && !ctx.get('transfer-encoding')) return NO_BYTES;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source) {
      const b = chunk as Buffer;
      size += b.length;
      if (size > limit) throw bodyError({ status: 413 }, limit);
      chunks.push(b);
    }
  } catch (e) {
    if (isAppError(e)) throw e;
    throw bodyError({}); // a corrupt compressed stream, or the client went away mid-body
  }
  return Buffer.concat(chunks, size);
}

/**
 * Strict JSON (objects and arrays only) up to limits.json_body_bytes_max, into ctx.request.body.
 * The bytes must be valid UTF-8: they are checked before decoding, since a decoder would silently
 * turn bad bytes into U+FFFD (and two different byte strings into the same text).
 */
export const parseJson: Middleware = async (ctx, next) => {
  let bytes = await readBytes(ctx, limits.json_body_bytes_max);
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
  ctx.request.body = parsed;
  await next();
};

/**
 * A raw route's body (a signed webhook) up to limits.webhook_body_bytes_max, unparsed, into
 * ctx.state.raw: its service checks a signature over exactly these bytes before it reads them.
 */
export const readRaw: Middleware = async (ctx, next) => {
  ctx.state.raw = await readBytes(ctx, limits.webhook_body_bytes_max);
  await next();
};
