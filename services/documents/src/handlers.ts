import { randomUUID, createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  AppError,
  type DocumentBrandingDto,
  type DocumentContentType,
  type EstimateDefaultsDto,
  type InvoiceDefaultsDto,
  type TrustedContext,
  actionReply,
  list,
  page,
  single,
} from '@acct/contracts';
import { type Orm, type RpcClient, type RpcServer, pageQuery } from '@acct/kit';
import { fromBuffer } from 'file-type';
import { type DocumentsConfig, LOGO_MAX_BYTES } from './config';
import { sanitizeFileName } from './domain/file-name';
import { SNIFF_BYTES, allowedBinaryType, documentStatus, looksLikeText, textType } from './domain/sniff';
import {
  type DocumentRow,
  type Scope,
  deletePending,
  discardPending,
  documentDto,
  finalizeDocument,
  forgetDiscarded,
  findByIdempotencyKey,
  findDocument,
  insertDocument,
  insertLink,
  linksOf,
  listDocuments,
  mergeSettings,
} from './queries';
import { requireRecord } from './flows/records';
import { BRANDING_DEFAULTS, ESTIMATE_DEFAULTS, INVOICE_DEFAULTS, readSettings } from './flows/settings';
import { Storage, isStorageUnavailable, s3 } from './storage';

const scopeOf = (ctx: TrustedContext): Scope => ({ organizationId: ctx.organizationId, environment: ctx.environment });

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

export interface DocumentsDeps {
  server: RpcServer;
  orm: Orm;
  rpc: Pick<RpcClient, 'call'>;
  storage: Storage;
  config: DocumentsConfig;
}

export function registerHandlers({ server, orm, rpc, storage, config }: DocumentsDeps): void {
  const withLinks = async (row: DocumentRow) => documentDto(row, (await linksOf(orm.em.fork(), [row.id])).get(row.id) ?? []);
  const mustFind = async (s: Scope, id: string) => {
    const row = await findDocument(orm.em.fork(), s, id);
    if (!row) throw AppError.notFound('Document', id);
    return row;
  };
  /**
   * Discards a reservation: the row goes at once (its key queued, one statement), then the object is
   * deleted now unless `later`; a store that is down or frozen leaves the key to the sweeper. Never
   * waits on the store longer than one bounded call (S3_TIMEOUT_MS).
   */
  const discardUpload = async (row: Pick<DocumentRow, 'id' | 'storage_key'>, { later = false } = {}): Promise<boolean> => {
    const dropped = await discardPending(orm.em.fork(), row.id);
    if (later) return dropped;
    try {
      await storage.delete(row.storage_key);
      await forgetDiscarded(orm.em.fork(), row.storage_key);
    } catch (e) {
      if (!isStorageUnavailable(e)) throw e;
    }
    return dropped;
  };
  const tooLarge = (size: number) =>
    new AppError('validation_failed', `The file is ${size} bytes; uploads are limited to ${config.UPLOAD_MAX_BYTES} bytes.`, [
      { field: 'file', issue: 'too_large', message: `At most ${config.UPLOAD_MAX_BYTES} bytes.` },
    ]);

  // ---------- uploads: prepare (reserve + presigned PUT), finalize (measure, sniff), discard ----------
  server.handle('documents.upload_prepare', async (req) => {
    const { fields, size_bytes, sha256, declared_content_type } = req.body;
    const s = scopeOf(req.ctx);
    const key = req.ctx.idempotencyKey;
    if (size_bytes > config.UPLOAD_MAX_BYTES) throw tooLarge(size_bytes);
    if ((fields.record_type === undefined) !== (fields.record_id === undefined)) {
      throw AppError.validation('record_type and record_id go together.', [
        { field: fields.record_type ? 'record_id' : 'record_type', issue: 'required', message: 'Give both or neither.' },
      ]);
    }
    if (key) {
      const earlier = await findByIdempotencyKey(orm.em.fork(), s, req.ctx.connectedAppId, key);
      if (earlier && earlier.status !== 'pending') return { ok: true, status: 200, body: { replay: single('document', await withLinks(earlier)) } };
      // A retry of an upload that never finished: start over with the same reservation's key freed
      // (its object, if any, is the sweeper's: no wait on a store that may be why it never finished).
      if (earlier) await discardUpload(earlier, { later: true });
    }
    if (fields.record_type && fields.record_id) await requireRecord(rpc, req.ctx, fields.record_type, fields.record_id);
    const id = randomUUID();
    const storageKey = Storage.key(s.organizationId, s.environment, id);
    const contentType = 'application/octet-stream';
    const putUrl = await s3(() => storage.presignPut(storageKey, size_bytes, contentType, config.PRESIGN_TTL_S));
    try {
      await insertDocument(orm.em.fork(), {
        id,
        organization_id: s.organizationId,
        connected_app_id: req.ctx.connectedAppId,
        environment: s.environment,
        file_name: sanitizeFileName(req.body.file_name),
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
    return { ok: true, status: 201, body: { upload_id: id, put_url: putUrl, headers: { 'content-type': contentType, 'content-length': String(size_bytes) } } };
  });

  server.handle('documents.upload_finalize', async (req) => {
    const s = scopeOf(req.ctx);
    const row = await findDocument(orm.em.fork(), s, req.body.upload_id, { pending: true });
    if (!row) throw AppError.notFound('Upload', req.body.upload_id);
    if (row.status !== 'pending') return { ok: true, status: 200, body: single('document', await withLinks(row)), replayed: true };
    try {
      const body = await s3(() => storage.get(row.storage_key));
      if (!body) {
        await deletePending(orm.em.fork(), row.id);
        throw AppError.conflict('The upload has no bytes in storage; upload again.');
      }
      const got = await s3(() => measure(body));
      if (got.size !== Number(row.size_bytes) || got.sha256 !== row.sha256) {
        await discardUpload(row);
        throw AppError.conflict('The stored bytes differ from the upload (size or SHA-256); upload again.');
      }
      let sniffed: DocumentContentType | undefined;
      const magic = await fromBuffer(got.head);
      if (magic) sniffed = allowedBinaryType(magic.mime);
      else if (looksLikeText(got.head, got.size <= got.head.length)) sniffed = textType(row.declared_content_type, row.file_name);
      if (!sniffed) {
        await discardUpload(row);
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
      await discardUpload(row, { later: true }).catch(() => undefined);
      throw e;
    }
    const done = (await findDocument(orm.em.fork(), s, row.id))!;
    return { ok: true, status: 201, body: single('document', await withLinks(done)) };
  });

  server.handle('documents.upload_discard', async (req) => {
    const row = await findDocument(orm.em.fork(), scopeOf(req.ctx), req.body.upload_id, { pending: true });
    if (!row || row.status !== 'pending') return { ok: true, status: 200, body: { discarded: false } };
    return { ok: true, status: 200, body: { discarded: await discardUpload(row) } };
  });

  // ---------- reads ----------
  server.handle('documents.list', async (req) => {
    const { limit, offset } = pageQuery(req.query);
    const { document_type, status, linked_record_id } = req.query;
    const em = orm.em.fork();
    const rows = await listDocuments(em, scopeOf(req.ctx), { document_type, status, linked_record_id }, limit + 1, offset);
    const links = await linksOf(
      em,
      rows.map((r) => r.id),
    );
    const { items, pagination } = page(
      rows.map((r) => documentDto(r, links.get(r.id) ?? [])),
      limit,
      offset,
    );
    return { ok: true, status: 200, body: list('documents', items, pagination) };
  });

  server.handle('documents.get', async (req) => ({ ok: true, status: 200, body: single('document', await withLinks(await mustFind(scopeOf(req.ctx), req.params.id))) }));

  server.handle('documents.download', async (req) => {
    const row = await mustFind(scopeOf(req.ctx), req.params.id);
    const url = await s3(() => storage.presignGet(row.storage_key, config.PRESIGN_TTL_S));
    const dto = await withLinks(row);
    return { ok: true, status: 200, body: single('document', dto), fileUrl: url, contentType: dto.content_type, filename: dto.file_name, sha256: row.sha256 };
  });

  server.handle('documents.link', async (req) => {
    const s = scopeOf(req.ctx);
    const row = await mustFind(s, req.params.id);
    const { record_type, record_id } = req.body;
    await requireRecord(rpc, req.ctx, record_type, record_id);
    const linked = await insertLink(orm.em.fork(), row.id, record_type, record_id);
    const dto = await withLinks(row);
    const body = { ...actionReply('document', dto, 'linked'), data: { id: row.id, linked_record_id: record_id } };
    // API-DECISIONS §1: linking again to the same record is a repeated action (Idempotent-Replayed: true).
    return { ok: true, status: 200, body, ...(linked ? {} : { replayed: true as const }) };
  });

  // ---------- settings ----------
  server.handle('settings.capabilities', () =>
    Promise.resolve({
      ok: true,
      status: 200,
      body: single('capabilities', { document_branding: true, invoice_defaults: true, estimate_defaults: true }),
    }),
  );
  server.handle('settings.document_branding.get', async (req) => ({
    ok: true,
    status: 200,
    body: single('document_branding', (await readSettings(orm, scopeOf(req.ctx))).branding),
  }));
  server.handle('settings.document_branding.put', async (req) => {
    const s = scopeOf(req.ctx);
    const logo = req.body.logo_document_id;
    if (logo) {
      const doc = await findDocument(orm.em.fork(), s, logo);
      if (!doc) throw AppError.notFound('Document', logo);
      if (doc.content_type !== 'image/png' && doc.content_type !== 'image/jpeg') {
        throw AppError.validation('The logo must be a PNG or JPEG document.', [
          { field: '/logo_document_id', issue: 'invalid_type', message: `Document ${logo} is ${doc.content_type}.` },
        ]);
      }
      if (Number(doc.size_bytes) > LOGO_MAX_BYTES) {
        throw AppError.validation(`The logo must be at most ${LOGO_MAX_BYTES} bytes.`, [
          { field: '/logo_document_id', issue: 'too_large', message: `Document ${logo} is ${doc.size_bytes} bytes.` },
        ]);
      }
    }
    const value = await mergeSettings<DocumentBrandingDto>(orm.em.fork(), s, 'document_branding', req.body);
    return { ok: true, status: 200, body: single('document_branding', { ...BRANDING_DEFAULTS, ...value }) };
  });
  server.handle('settings.invoice_defaults.get', async (req) => ({ ok: true, status: 200, body: single('invoice_defaults', (await readSettings(orm, scopeOf(req.ctx))).invoice) }));
  server.handle('settings.invoice_defaults.put', async (req) => {
    const value = await mergeSettings<InvoiceDefaultsDto>(orm.em.fork(), scopeOf(req.ctx), 'invoice_defaults', req.body);
    return { ok: true, status: 200, body: single('invoice_defaults', { ...INVOICE_DEFAULTS, ...value }) };
  });
  server.handle('settings.estimate_defaults.get', async (req) => ({
    ok: true,
    status: 200,
    body: single('estimate_defaults', (await readSettings(orm, scopeOf(req.ctx))).estimate),
  }));
  server.handle('settings.estimate_defaults.put', async (req) => {
    const value = await mergeSettings<EstimateDefaultsDto>(orm.em.fork(), scopeOf(req.ctx), 'estimate_defaults', req.body);
    return { ok: true, status: 200, body: single('estimate_defaults', { ...ESTIMATE_DEFAULTS, ...value }) };
  });
}
