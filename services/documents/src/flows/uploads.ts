import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError, type DocumentContentType, type DocumentDto, type RpcBodyOf, type TrustedContext } from '@acct/contracts';
import { scopeOf } from '@acct/kit';
import { fromBuffer } from 'file-type';
import { Storage, isStorageUnavailable, s3 } from '../adapters/storage';
import type { DocumentRow } from '../domain/documents';
import { sanitizeFileName } from '../domain/file-name';
import { SNIFF_BYTES, allowedBinaryType, documentStatus, looksLikeText, textType } from '../domain/sniff';
import { deletePending, discardPending, finalizeDocument, findByIdempotencyKey, findDocument, forgetDiscarded, insertDocument, insertLink } from '../queries';
import type { DocumentsDeps } from './deps';
import { mustFindDocument, withLinks } from './documents';
import { requireRecord } from './records';

/** Hash, size and the first bytes of a stream, read once. */
async function measure(stream: Readable): Promise<{ sha256: string; size: number; head: Buffer }> {
  const hash = createHash('sha256');
  let size = 0;
  const head: Buffer[] = [];
  let headLen = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
    if (headLen < SNIFF_BYTES) {
      head.push(chunk.subarray(0, SNIFF_BYTES - headLen));
      headLen += Math.min(chunk.length, SNIFF_BYTES - headLen);
    }
  }
  return { sha256: hash.digest('hex'), size, head: Buffer.concat(head) };
}

/**
 * Discards a reservation: the row goes at once (its key queued, one statement), then the object is
 * deleted now unless `later`; a store that is down or frozen leaves the key to the sweeper. Never
 * waits on the store longer than one bounded call (S3_TIMEOUT_MS).
 */
async function discardUpload({ orm, storage }: DocumentsDeps, row: Pick<DocumentRow, 'id' | 'storage_key'>, { later = false } = {}): Promise<boolean> {
  const dropped = await discardPending(orm.em.fork(), row.id);
  if (later) return dropped;
  try {
    await storage.delete(row.storage_key);
    await forgetDiscarded(orm.em.fork(), row.storage_key);
  } catch (e) {
    if (!isStorageUnavailable(e)) throw e;
  }
  return dropped;
}

const tooLarge = (size: number, max: number) =>
  new AppError('validation_failed', `The file is ${size} bytes; uploads are limited to ${max} bytes.`, [{ field: 'file', issue: 'too_large', message: `At most ${max} bytes.` }]);

/** Where the gateway PUTs the bytes of a reserved upload, and with which headers. */
interface Reservation {
  upload_id: string;
  put_url: string;
  headers: Record<string, string>;
}

/**
 * Reserves an upload: a `pending` row and a presigned PUT URL for exactly its bytes. A repeat of a
 * finished upload with the same Idempotency-Key answers the document (`replay`).
 */
export async function prepareUpload(
  deps: DocumentsDeps,
  ctx: TrustedContext,
  body: RpcBodyOf<'documents.upload_prepare'>,
): Promise<{ replay: DocumentDto } | { reservation: Reservation }> {
  const { orm, rpc, storage, config } = deps;
  const { fields, size_bytes, sha256, declared_content_type } = body;
  const s = scopeOf(ctx);
  const key = ctx.idempotencyKey;
  if (size_bytes > config.UPLOAD_MAX_BYTES) throw tooLarge(size_bytes, config.UPLOAD_MAX_BYTES);
  if ((fields.record_type === undefined) !== (fields.record_id === undefined)) {
    throw AppError.validation('record_type and record_id go together.', [
      { field: fields.record_type ? 'record_id' : 'record_type', issue: 'required', message: 'Give both or neither.' },
    ]);
  }
  if (key) {
    const earlier = await findByIdempotencyKey(orm.em.fork(), s, ctx.connectedAppId, key);
    if (earlier && earlier.status !== 'pending') return { replay: await withLinks(orm, earlier) };
    // A retry of an upload that never finished: start over with the same reservation's key freed
    // (its object, if any, is the sweeper's: no wait on a store that may be why it never finished).
    if (earlier) await discardUpload(deps, earlier, { later: true });
  }
  if (fields.record_type && fields.record_id) await requireRecord(rpc, ctx, fields.record_type, fields.record_id);
  const id = randomUUID();
  const storageKey = Storage.key(s.organizationId, s.environment, id);
  const contentType = 'application/octet-stream';
  const putUrl = await s3(() => storage.presignPut(storageKey, size_bytes, contentType, config.PRESIGN_TTL_S));
  try {
    await insertDocument(orm.em.fork(), {
      id,
      organization_id: s.organizationId,
      connected_app_id: ctx.connectedAppId,
      environment: s.environment,
      file_name: sanitizeFileName(body.file_name),
      document_type: fields.document_type ?? null,
      source: fields.source ?? null,
      status: 'pending',
      declared_content_type: declared_content_type.slice(0, 255),
      content_type: null,
      size_bytes,
      sha256,
      storage_key: storageKey,
      idempotency_key: key ?? null,
      link_record_type: fields.record_type ?? null,
      link_record_id: fields.record_id ?? null,
      created_at: new Date(),
      finalized_at: null,
    });
  } catch (e) {
    if ((e as { code?: string }).code === '23505' || /duplicate key/.test(String((e as Error).message))) {
      throw AppError.conflict('An upload with this Idempotency-Key is in progress. Retry later.');
    }
    throw e;
  }
  return { reservation: { upload_id: id, put_url: putUrl, headers: { 'content-type': contentType, 'content-length': String(size_bytes) } } };
}

/**
 * Finalizes an upload: reads the stored bytes back, checks their size and SHA-256, sniffs their type,
 * and keeps the document (with its link) or discards the reservation. `replayed` when it was already final.
 */
export async function finalizeUpload(deps: DocumentsDeps, ctx: TrustedContext, uploadId: string): Promise<{ document: DocumentDto; replayed: boolean }> {
  const { orm, storage } = deps;
  const s = scopeOf(ctx);
  const row = await findDocument(orm.em.fork(), s, uploadId, { pending: true });
  if (!row) throw AppError.notFound('Upload', uploadId);
  if (row.status !== 'pending') return { document: await withLinks(orm, row), replayed: true };
  try {
    const body = await s3(() => storage.get(row.storage_key));
    if (!body) {
      await deletePending(orm.em.fork(), row.id);
      throw AppError.conflict('The upload has no bytes in storage; upload again.');
    }
    const got = await s3(() => measure(body));
    if (got.size !== Number(row.size_bytes) || got.sha256 !== row.sha256) {
      await discardUpload(deps, row);
      throw AppError.conflict('The stored bytes differ from the upload (size or SHA-256); upload again.');
    }
    let sniffed: DocumentContentType | undefined;
    const magic = await fromBuffer(got.head);
    if (magic) sniffed = allowedBinaryType(magic.mime);
    else if (looksLikeText(got.head, got.size <= got.head.length)) sniffed = textType(row.declared_content_type, row.file_name);
    if (!sniffed) {
      await discardUpload(deps, row);
      throw new AppError('validation_failed', `The file's type (${magic?.mime ?? 'unknown binary'}) is not allowed: PDF, PNG, JPEG, WEBP, HEIC, GIF, CSV or plain text.`, [
        { field: 'file', issue: 'unsupported_type', message: `Sniffed type ${magic?.mime ?? 'unknown'} is not allowed.` },
      ]);
    }
    const status = documentStatus(row.document_type, row.declared_content_type, sniffed);
    await orm.em.fork().transactional(async (em) => {
      // Discarded meanwhile (the gateway gave up waiting and asked upload_discard): nothing to finalize.
      if (!(await finalizeDocument(em, row.id, status, sniffed))) throw AppError.conflict('The upload was discarded; upload again.');
      if (row.link_record_type && row.link_record_id) await insertLink(em, row.id, row.link_record_type, row.link_record_id);
    });
  } catch (e) {
    // Whatever failed before the document was kept (storage down or frozen, a fault), the
    // reservation goes now; its object, if any, is deleted by the sweeper (no second wait on the store).
    await discardUpload(deps, row, { later: true }).catch(() => undefined);
    throw e;
  }
  return { document: await withLinks(orm, await mustFindDocument(orm, s, row.id)), replayed: false };
}

/** The gateway gave up on an upload: its reservation goes (row now, object now or by the sweeper). False when there was none pending. */
export async function abandonUpload(deps: DocumentsDeps, ctx: TrustedContext, uploadId: string): Promise<boolean> {
  const row = await findDocument(deps.orm.em.fork(), scopeOf(ctx), uploadId, { pending: true });
  if (!row || row.status !== 'pending') return false;
  return discardUpload(deps, row);
}
