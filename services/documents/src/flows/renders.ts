import type { Readable } from 'node:stream';
import { AppError, type CustomerDto, type EstimateDto, type InvoiceDto, type ShareRecordType, type TrustedContext } from '@acct/contracts';
import { type Scope, scopeOf } from '@acct/kit';
import { s3 } from '../adapters/storage';
import type { RenderRow } from '../domain/shares';
import { type RecordView, estimateView, invoiceView } from '../domain/view';
import { findDocument, findRender } from '../queries';
import type { DocumentsDeps } from './deps';
import { fetchRecord } from './records';
import { readSettings } from './settings';

/** What the gateway needs to stream a render's PDF (a short-lived URL; bytes never travel over NATS). */
export interface RenderFile {
  fileUrl: string;
  contentType: 'application/pdf';
  filename: string;
  sha256: string;
}

/** The whole stream, or undefined (and the stream destroyed) once it passes `max` bytes. */
async function readAll(stream: Readable, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > max) {
      stream.destroy();
      return undefined;
    }
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

/** The logo's bytes and type, or undefined when none is set, it is gone, or it is over `max` bytes. */
export async function logoOf({ orm, storage }: DocumentsDeps, s: Scope, id: string | null, max: number): Promise<{ bytes: Buffer; type: string } | undefined> {
  if (!id) return undefined;
  const doc = await findDocument(orm.em.fork(), s, id);
  if (!doc?.content_type || Number(doc.size_bytes) > max) return undefined;
  const body = await s3(() => storage.get(doc.storage_key));
  const bytes = body ? await s3(() => readAll(body, max)) : undefined;
  return bytes ? { bytes, type: doc.content_type } : undefined;
}

/** The record as it is now (asked of receivables), with its customer and the settings, as one view. */
export async function viewOf({ orm, rpc }: DocumentsDeps, ctx: TrustedContext, type: ShareRecordType, id: string): Promise<{ view: RecordView; logoId: string | null }> {
  const record = await fetchRecord<InvoiceDto | EstimateDto>(rpc, ctx, type, id);
  const [customer, settings] = await Promise.all([fetchRecord<CustomerDto>(rpc, ctx, 'customer', record.customer_id), readSettings(orm, scopeOf(ctx))]);
  const input = { customer, branding: settings.branding, invoiceDefaults: settings.invoice, estimateDefaults: settings.estimate };
  const view = type === 'invoice' ? invoiceView(record as InvoiceDto, input) : estimateView(record as EstimateDto, input);
  return { view, logoId: settings.branding.logo_document_id };
}

/** A render of the scope; 404 otherwise. */
export async function mustFindRender({ orm }: DocumentsDeps, s: Scope, id: string): Promise<RenderRow> {
  const row = await findRender(orm.em.fork(), s, id);
  if (!row) throw AppError.notFound('Document render', id);
  return row;
}

/** The render and where the gateway streams its PDF from. */
export async function downloadRender(deps: DocumentsDeps, s: Scope, id: string): Promise<{ render: RenderRow; file: RenderFile }> {
  const render = await mustFindRender(deps, s, id);
  const fileUrl = await s3(() => deps.storage.presignGet(render.storage_key, deps.config.PRESIGN_TTL_S));
  return { render, file: { fileUrl, contentType: 'application/pdf', filename: render.file_name, sha256: render.sha256 } };
}
