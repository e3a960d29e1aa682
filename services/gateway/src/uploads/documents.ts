import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { AppError, type DocumentUploadFields, SCOPE_FIELDS, compileBody, findBadInput, schemas, toDetails, type RpcReply } from '@acct/contracts';
import type { Logger } from '@acct/kit';
import { DEFAULT_STORAGE_TIMEOUT_MS, type RpcCaller } from '../middlewares/forward';
import type { UploadHandler } from '../middlewares/upload';

/** API-DECISIONS §6: uploads ≤ 25 MiB by default (UPLOAD_MAX_BYTES). */
export const DEFAULT_UPLOAD_MAX_BYTES = 25 * 1024 * 1024;

export interface DocumentUploadDeps {
  rpc: RpcCaller;
  log: Logger;
  /** Largest file part, bytes (413 past it). */
  maxBytes: number;
  /** Where the file part is spooled while it arrives (never held in memory); the OS temp folder by default. */
  spoolDir?: string;
  /**
   * How long the PUT of the bytes to storage may stand still (connecting, no bytes taken, no
   * answer after the last one), ms; 5 s by default. Past it the upload is discarded: 503.
   */
  putTimeoutMs?: number;
}

const FIELD_NAMES = new Set(Object.keys(schemas.documents.documentUploadFields.properties));
const checkFields = compileBody(schemas.documents.documentUploadFields);

interface Spooled {
  file: string;
  fileName: string;
  declaredType: string;
  size: number;
  sha256: string;
  fields: Record<string, string>;
}

const tooLarge = (max: number) =>
  new AppError('validation_failed', `The file is over the ${max}-byte upload limit.`, [{ field: 'file', issue: 'too_large', message: `At most ${max} bytes.` }], 413);

function multipartParser(contentType: string, maxBytes: number): busboy.Busboy {
  try {
    return busboy({
      headers: { 'content-type': contentType },
      defParamCharset: 'utf8',
      limits: { files: 1, fileSize: maxBytes + 1, fields: 20, fieldSize: 4096, parts: 25, headerPairs: 20 },
    });
  } catch {
    throw new AppError('validation_failed', 'The body must be multipart/form-data with a boundary.', [], 415);
  }
}

interface FileMeta {
  fileName: string;
  declaredType: string;
  size: number;
  sha256: string;
  truncated: boolean;
}

/** Writes the file part to `file`, measuring its size and SHA-256 on the way (set in meta once written). */
function spoolFilePart(part: Readable, info: busboy.FileInfo, file: string): { meta: FileMeta; writing: Promise<void> } {
  const hash = createHash('sha256');
  let size = 0;
  // The file name is display only (documents sanitizes it); its NULs go here, as the bus refuses NUL in any request (rpc-request.ts).
  const meta: FileMeta = { fileName: (info.filename ?? 'file').split('\u0000').join(''), declaredType: info.mimeType ?? '', size: 0, sha256: '', truncated: false };
  part.on('data', (chunk: Buffer) => {
    hash.update(chunk);
    size += chunk.length;
  });
  // busboy stops at maxBytes + 1: one byte past the limit is enough to know it is too large.
  part.on('limit', () => (meta.truncated = true));
  const writing = pipeline(part, fs.createWriteStream(file)).then(() => {
    meta.size = size;
    meta.sha256 = hash.digest('hex');
  });
  return { meta, writing };
}

/**
 * Parses the multipart stream: the one `file` part goes to a spool file while its size and SHA-256
 * are measured (memory stays flat whatever the size); the other parts are small text fields.
 */
async function spool(stream: Readable, contentType: string, maxBytes: number, dir: string): Promise<Spooled> {
  const bb = multipartParser(contentType, maxBytes); // 415 for a Content-Type busboy cannot read
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    const file = path.join(dir, `acct-upload-${randomUUID()}`);
    let writing: Promise<void> | undefined;
    let meta: FileMeta | undefined;
    let failed: unknown;
    const fail = (e: unknown) => {
      failed ??= e;
      stream.unpipe(bb);
      stream.resume();
      fs.rm(file, { force: true }, () => reject(failed instanceof Error ? failed : new Error(String(failed))));
    };
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(AppError.validation(`The field ${name} is too long.`, [{ field: name, issue: 'too_long', message: 'At most 4096 bytes.' }]));
      fields[name] = value;
    });
    bb.on('file', (name, part, info) => {
      if (name !== 'file' || writing) {
        part.resume();
        return;
      }
      ({ meta, writing } = spoolFilePart(part, info, file));
      writing.catch(fail);
    });
    bb.on('error', () => fail(AppError.validation('The multipart body is malformed or was cut off.')));
    bb.on('partsLimit', () => fail(AppError.validation('Too many parts in the multipart body.')));
    bb.on('fieldsLimit', () => fail(AppError.validation('Too many fields in the multipart body.')));
    bb.on('close', () => {
      void (async () => {
        await writing;
        if (failed) return;
        if (!meta)
          return fail(
            AppError.validation('The multipart body has no file part named file.', [{ field: 'file', issue: 'required', message: 'Send the file as the part named file.' }]),
          );
        if (meta.truncated || meta.size > maxBytes) return fail(tooLarge(maxBytes));
        resolve({ file, fields, ...meta });
      })().catch(fail);
    });
    // A client that goes away mid-upload: the spool file is removed and nothing reaches storage.
    stream.on('aborted', () => fail(AppError.validation('The upload was cut off.')));
    stream.on('error', fail);
    stream.pipe(bb);
  });
}

function parseFields(raw: Record<string, string>): DocumentUploadFields {
  for (const f of SCOPE_FIELDS) {
    if (f in raw)
      throw new AppError('trusted_scope_field_not_allowed', `The field ${f} is set by the API key, not by the request.`, [
        { field: f, issue: 'not_allowed', message: 'Scope fields are not accepted.' },
      ]);
  }
  for (const name of Object.keys(raw)) {
    if (!FIELD_NAMES.has(name)) throw AppError.validation(`Unknown field ${name}.`, [{ field: name, issue: 'unknown_field', message: 'Not a field of this upload.' }]);
  }
  // As in a JSON body: no U+0000 (or lone surrogate) in a text field.
  const bad = findBadInput(raw, (p) => p.join('.'));
  if (bad) throw AppError.validation('The upload fields are invalid.', [bad]);
  if (!checkFields(raw)) throw AppError.validation('The upload fields are invalid.', toDetails(checkFields.errors));
  return raw;
}

/**
 * PUTs a file to a presigned URL with node:http, piped with backpressure (fetch with
 * Readable.toWeb reads the whole file ahead on Node 20, which is what made memory grow). The
 * socket's idle timeout bounds each wait on storage (connect, taking the next bytes, the answer),
 * not the whole transfer, so a large file on a slow but moving link still goes through.
 */
function putFile(url: string, headers: Record<string, string>, file: string, timeoutMs: number): Promise<void> {
  const u = new URL(url);
  const send = u.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = send(u, { method: 'PUT', headers, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => ((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300 ? resolve() : reject(new Error(`storage answered ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('storage did not answer in time')));
    req.on('error', reject);
    pipeline(fs.createReadStream(file), req).catch(reject);
  });
}

/**
 * Reads and drops the rest of a body that is refused before it is read, up to `max` bytes (past it
 * the connection may be cut: a legitimate upload is no larger). Resolves at its end, or at `max`.
 */
export function drain(stream: Readable, max: number): Promise<void> {
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      stream.off('data', onData);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > max) {
        stream.pause();
        done();
      }
    };
    if (stream.readableEnded || stream.destroyed) return resolve();
    stream.on('data', onData);
    stream.once('end', done);
    stream.once('error', done);
    stream.once('close', done);
  });
}

/** A 415-worthy refusal of the service (a sniffed type that is not allowed) keeps its HTTP status. */
function withUploadStatus(reply: RpcReply): RpcReply {
  if (!reply.ok && reply.error.details?.some((d) => d.issue === 'unsupported_type')) throw new AppError(reply.error.code, reply.error.message, reply.error.details, 415);
  if (!reply.ok && reply.error.details?.some((d) => d.issue === 'too_large')) throw new AppError(reply.error.code, reply.error.message, reply.error.details, 413);
  return reply;
}

/**
 * POST /documents: spool the file part (size, SHA-256), reserve the document with the service, PUT
 * the bytes to the presigned URL it returns, then ask it to finalize (it sniffs and checks them).
 * Any failure after the reservation discards it, so no orphan row or object is left.
 */
export function documentUpload(deps: DocumentUploadDeps): UploadHandler {
  const dir = deps.spoolDir ?? os.tmpdir();
  return async (req) => {
    if (!/^multipart\/form-data\s*;/i.test(req.contentType)) {
      // Read (and drop) what the client sends first: answering over a body still arriving, then
      // closing, makes the kernel reset the connection, and the client sees ECONNRESET, not the 415.
      await drain(req.stream, deps.maxBytes);
      throw new AppError(
        'validation_failed',
        'Upload with Content-Type multipart/form-data.',
        [{ field: 'Content-Type', issue: 'unsupported_media_type', message: 'Use multipart/form-data.' }],
        415,
      );
    }
    // A declared length far over the limit is refused before a byte is read.
    if (req.contentLength !== undefined && req.contentLength > deps.maxBytes + 64 * 1024) {
      req.stream.resume();
      throw tooLarge(deps.maxBytes);
    }
    const spooled = await spool(req.stream, req.contentType, deps.maxBytes, dir);
    try {
      const fields = parseFields(spooled.fields);
      const prepared = await deps.rpc.call('documents.upload_prepare', {
        ctx: req.ctx,
        params: {},
        query: {},
        body: { file_name: spooled.fileName, declared_content_type: spooled.declaredType, size_bytes: spooled.size, sha256: spooled.sha256, fields },
      });
      if (!prepared.ok) return withUploadStatus(prepared);
      const p = prepared.body as { upload_id?: string; put_url?: string; headers?: Record<string, string>; replay?: unknown };
      if (p.replay) return { ok: true, status: 200, body: p.replay, replayed: true };
      const uploadId = p.upload_id!;
      const discard = () =>
        deps.rpc.call('documents.upload_discard', { ctx: req.ctx, params: {}, query: {}, body: { upload_id: uploadId } }).catch((err) => {
          deps.log.warn({ err, upload_id: uploadId }, 'discarding an upload failed; the sweeper will remove it');
        });
      try {
        await putFile(p.put_url!, p.headers ?? {}, spooled.file, deps.putTimeoutMs ?? DEFAULT_STORAGE_TIMEOUT_MS);
      } catch (err) {
        deps.log.warn({ err, upload_id: uploadId }, 'storing an upload failed');
        await discard();
        throw new AppError('service_unavailable', 'Document storage is unavailable. Retry later.');
      }
      const done = await deps.rpc.call('documents.upload_finalize', { ctx: req.ctx, params: {}, query: {}, body: { upload_id: uploadId } });
      if (!done.ok && done.error.code === 'service_unavailable') await discard();
      return withUploadStatus(done);
    } finally {
      await fs.promises.rm(spooled.file, { force: true });
    }
  };
}
