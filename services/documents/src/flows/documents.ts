import { AppError, type DocumentDto, type LinkRecordType, type TrustedContext } from '@acct/contracts';
import { type ListQuery, type Orm, type Scope, scopeOf, unknownCursor } from '@acct/kit';
import { type DocumentRow, documentDto } from '../domain/documents';
import { type DocumentFilters, findDocument, insertLink, linksOf, listDocuments } from '../queries';
import { s3 } from '../adapters/storage';
import type { DocumentsDeps } from './deps';
import { requireRecord } from './records';

/** The document with its links, as the API shows it. */
export async function withLinks(orm: Orm, row: DocumentRow): Promise<DocumentDto> {
  return documentDto(row, (await linksOf(orm.em.fork(), [row.id])).get(row.id) ?? []);
}

/** A finalized document of the scope; 404 otherwise (an upload in progress is invisible). */
export async function mustFindDocument(orm: Orm, s: Scope, id: string): Promise<DocumentRow> {
  const row = await findDocument(orm.em.fork(), s, id);
  if (!row) throw AppError.notFound('Document', id);
  return row;
}

/** A page of the scope's documents with their links (one more than `limit`, for has_more; a cursor must be a document of the list, else 400). */
export async function listDocumentDtos(orm: Orm, s: Scope, filters: DocumentFilters, q: ListQuery): Promise<DocumentDto[]> {
  const em = orm.em.fork();
  if (q.cursor && !(await findDocument(em, s, q.cursor.id))) throw unknownCursor(q.cursor);
  const rows = await listDocuments(em, s, filters, q);
  const links = await linksOf(
    em,
    rows.map((r) => r.id),
  );
  return rows.map((r) => documentDto(r, links.get(r.id) ?? []));
}

/** The document and a short-lived URL the gateway streams its bytes from. */
export async function downloadDocument({ orm, storage, config }: DocumentsDeps, s: Scope, id: string): Promise<{ document: DocumentDto; url: string; sha256: string }> {
  const row = await mustFindDocument(orm, s, id);
  const url = await s3(() => storage.presignGet(row.storage_key, config.PRESIGN_TTL_S));
  return { document: await withLinks(orm, row), url, sha256: row.sha256 };
}

/** Links the document to a record the caller can read (its owner says so over NATS); `linked` false when the link was already there. */
export async function linkDocument(
  { orm, rpc }: DocumentsDeps,
  ctx: TrustedContext,
  id: string,
  recordType: LinkRecordType,
  recordId: string,
): Promise<{ document: DocumentDto; linked: boolean }> {
  const row = await mustFindDocument(orm, scopeOf(ctx), id);
  await requireRecord(rpc, ctx, recordType, recordId);
  const linked = await insertLink(orm.em.fork(), row.id, recordType, recordId);
  return { document: await withLinks(orm, row), linked };
}
