import type { DocumentContentType, LinkRecordType } from '@acct/contracts';
import { type EntityManager, type ListQuery, type Scope, keysetSql } from '@acct/kit';
import type { DocumentRow, LinkRow } from './domain/documents';
import type { SettingsKind, SettingsOf } from './domain/settings';
import type { RenderRow, ShareRow } from './domain/shares';

/** Every SQL statement of the service (raw SQL through em.execute, `?` placeholders); the row types are in domain/. */

// ---------- documents and their links ----------
export async function insertDocument(em: EntityManager, r: DocumentRow): Promise<void> {
  await em.execute(
    `INSERT INTO documents (id, organization_id, connected_app_id, environment, file_name, document_type, source, status, declared_content_type, content_type,
       size_bytes, sha256, storage_key, idempotency_key, link_record_type, link_record_id, created_at, finalized_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      r.id,
      r.organization_id,
      r.connected_app_id,
      r.environment,
      r.file_name,
      r.document_type,
      r.source,
      r.status,
      r.declared_content_type,
      r.content_type,
      r.size_bytes,
      r.sha256,
      r.storage_key,
      r.idempotency_key,
      r.link_record_type,
      r.link_record_id,
      r.created_at,
      r.finalized_at,
    ],
  );
}

/** A document of the scope, pending ones included only when asked (uploads in progress are invisible). */
export async function findDocument(em: EntityManager, s: Scope, id: string, opts: { pending?: boolean; lock?: boolean } = {}): Promise<DocumentRow | undefined> {
  const rows = await em.execute<DocumentRow[]>(
    `SELECT * FROM documents WHERE id = ? AND organization_id = ? AND environment = ?${opts.pending ? '' : ` AND status <> 'pending'`}${opts.lock ? ' FOR UPDATE' : ''}`,
    [id, s.organizationId, s.environment],
  );
  return rows[0];
}

export async function findByIdempotencyKey(em: EntityManager, s: Scope, connectedAppId: string, key: string): Promise<DocumentRow | undefined> {
  const rows = await em.execute<DocumentRow[]>(`SELECT * FROM documents WHERE organization_id = ? AND environment = ? AND connected_app_id = ? AND idempotency_key = ?`, [
    s.organizationId,
    s.environment,
    connectedAppId,
    key,
  ]);
  return rows[0];
}

/** False when the row is no longer pending (finalized or discarded meanwhile). */
export async function finalizeDocument(em: EntityManager, id: string, status: 'uploaded' | 'needs_review', contentType: DocumentContentType): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(`UPDATE documents SET status = ?, content_type = ?, finalized_at = now() WHERE id = ? AND status = 'pending' RETURNING id`, [
    status,
    contentType,
    id,
  ]);
  return rows.length > 0;
}

export async function deletePending(em: EntityManager, id: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(`DELETE FROM documents WHERE id = ? AND status = 'pending' RETURNING id`, [id]);
  return rows.length > 0;
}

/**
 * Drops a pending reservation and queues its storage key in discarded_objects, in one statement:
 * the row is gone at once, and the object (if any) is always named by a row or a queue entry, so it
 * is never orphaned, whether or not the store answers now. False when there was no pending row.
 */
export async function discardPending(em: EntityManager, id: string): Promise<boolean> {
  const rows = await em.execute<{ storage_key: string }[]>(
    `WITH d AS (DELETE FROM documents WHERE id = ? AND status = 'pending' RETURNING storage_key),
          q AS (INSERT INTO discarded_objects (storage_key, discarded_at) SELECT storage_key, now() FROM d ON CONFLICT DO NOTHING)
     SELECT storage_key FROM d`,
    [id],
  );
  return rows.length > 0;
}

/** Storage keys whose objects are to be deleted (discarded uploads), oldest first. */
export async function discardedObjects(em: EntityManager, limit: number): Promise<string[]> {
  const rows = await em.execute<{ storage_key: string }[]>(`SELECT storage_key FROM discarded_objects ORDER BY discarded_at LIMIT ?`, [limit]);
  return rows.map((r) => r.storage_key);
}

/** The object of a discarded upload is gone from the store: forget its key. */
export async function forgetDiscarded(em: EntityManager, storageKey: string): Promise<void> {
  await em.execute(`DELETE FROM discarded_objects WHERE storage_key = ?`, [storageKey]);
}

/** Pending uploads older than the cutoff (a gateway that died between reserve and finalize). */
export async function stalePending(em: EntityManager, before: Date, limit: number): Promise<Pick<DocumentRow, 'id' | 'storage_key'>[]> {
  return em.execute(`SELECT id, storage_key FROM documents WHERE status = 'pending' AND created_at < ? ORDER BY created_at LIMIT ?`, [before, limit]);
}

/** What a list of documents may be filtered by (the list query's fields). */
export interface DocumentFilters {
  document_type?: string;
  status?: string;
  linked_record_id?: string;
}

/** A page of the scope's finalized documents, newest first (keyset or offset: kit keysetSql), on the documents_list index. */
export async function listDocuments(em: EntityManager, s: Scope, f: DocumentFilters, q: ListQuery): Promise<DocumentRow[]> {
  const where = [`organization_id = ?`, `environment = ?`, `status <> 'pending'`];
  const args: unknown[] = [s.organizationId, s.environment];
  if (f.document_type) {
    // Stored null means the upload named no type: it lists as other.
    where.push(f.document_type === 'other' ? `(document_type = 'other' OR document_type IS NULL)` : `document_type = ?`);
    if (f.document_type !== 'other') args.push(f.document_type);
  }
  if (f.status) {
    where.push(`status = ?`);
    args.push(f.status);
  }
  if (f.linked_record_id) {
    where.push(`id IN (SELECT document_id FROM document_links WHERE record_id = ?)`);
    args.push(f.linked_record_id);
  }
  const page = keysetSql(q, { time: 'created_at', cursorTime: `SELECT c.created_at FROM documents c WHERE c.id = ?` });
  return em.execute<DocumentRow[]>(`SELECT * FROM documents WHERE ${[...where, ...page.where].join(' AND ')} ORDER BY ${page.order} LIMIT ? OFFSET ?`, [
    ...args,
    ...page.args,
    page.limit,
    page.offset,
  ]);
}

export async function linksOf(em: EntityManager, ids: string[]): Promise<Map<string, LinkRow[]>> {
  const out = new Map<string, LinkRow[]>();
  if (ids.length === 0) return out;
  const rows = await em.execute<LinkRow[]>(`SELECT * FROM document_links WHERE document_id = ANY(?::uuid[]) ORDER BY linked_at, record_id`, [`{${ids.join(',')}}`]);
  for (const r of rows) out.set(r.document_id, [...(out.get(r.document_id) ?? []), r]);
  return out;
}

/** Links a document to a record; false when that link already existed (linking twice keeps the first link). */
export async function insertLink(em: EntityManager, documentId: string, recordType: LinkRecordType, recordId: string): Promise<boolean> {
  const rows = await em.execute<{ document_id: string }[]>(
    `INSERT INTO document_links (document_id, record_type, record_id, linked_at) VALUES (?, ?, ?, clock_timestamp()) ON CONFLICT DO NOTHING RETURNING document_id`,
    [documentId, recordType, recordId],
  );
  return rows.length > 0;
}

// ---------- settings ----------
export async function getSettings<K extends SettingsKind>(em: EntityManager, s: Scope, kind: K): Promise<Partial<SettingsOf[K]> | undefined> {
  const rows = await em.execute<{ value: Partial<SettingsOf[K]> }[]>(`SELECT value FROM settings WHERE organization_id = ? AND environment = ? AND kind = ?`, [
    s.organizationId,
    s.environment,
    kind,
  ]);
  return rows[0]?.value;
}

/** Merges the given fields into the stored ones (one statement, so concurrent PUTs never lose a field). */
export async function mergeSettings<K extends SettingsKind>(em: EntityManager, s: Scope, kind: K, patch: Partial<SettingsOf[K]>): Promise<Partial<SettingsOf[K]>> {
  const rows = await em.execute<{ value: Partial<SettingsOf[K]> }[]>(
    `INSERT INTO settings (organization_id, environment, kind, value, updated_at) VALUES (?, ?, ?, ?::jsonb, now())
     ON CONFLICT (organization_id, environment, kind) DO UPDATE SET value = settings.value || EXCLUDED.value, updated_at = now()
     RETURNING value`,
    [s.organizationId, s.environment, kind, JSON.stringify(patch)],
  );
  return rows[0]!.value;
}

// ---------- renders and shares ----------
/** A render and the share that publishes it, in one transaction. */
export async function insertShare(em: EntityManager, render: RenderRow, share: ShareRow): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.execute(
      `INSERT INTO document_renders (id, organization_id, environment, record_type, record_id, status, file_name, size_bytes, sha256, storage_key, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        render.id,
        render.organization_id,
        render.environment,
        render.record_type,
        render.record_id,
        render.status,
        render.file_name,
        render.size_bytes,
        render.sha256,
        render.storage_key,
        render.created_at,
      ],
    );
    await tx.execute(
      `INSERT INTO document_shares (id, organization_id, connected_app_id, environment, api_key_id, record_type, record_id, render_id, token, status, created_at, revoked_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        share.id,
        share.organization_id,
        share.connected_app_id,
        share.environment,
        share.api_key_id,
        share.record_type,
        share.record_id,
        share.render_id,
        share.token,
        share.status,
        share.created_at,
        share.revoked_at,
      ],
    );
  });
}

export async function findShare(em: EntityManager, s: Scope, id: string): Promise<ShareRow | undefined> {
  const rows = await em.execute<ShareRow[]>(`SELECT * FROM document_shares WHERE id = ? AND organization_id = ? AND environment = ?`, [id, s.organizationId, s.environment]);
  return rows[0];
}

/** The active share of a portal token (a revoked or unknown token finds nothing). */
export async function findActiveShareByToken(em: EntityManager, token: string): Promise<ShareRow | undefined> {
  const rows = await em.execute<ShareRow[]>(`SELECT * FROM document_shares WHERE token = ? AND status = 'active'`, [token]);
  return rows[0];
}

/** Revokes once: a second revoke keeps the first revoked_at. */
export async function revokeShare(em: EntityManager, s: Scope, id: string): Promise<ShareRow | undefined> {
  const rows = await em.execute<ShareRow[]>(
    `UPDATE document_shares SET status = 'revoked', revoked_at = COALESCE(revoked_at, now())
     WHERE id = ? AND organization_id = ? AND environment = ? RETURNING *`,
    [id, s.organizationId, s.environment],
  );
  return rows[0];
}

export async function findRender(em: EntityManager, s: Scope, id: string): Promise<RenderRow | undefined> {
  const rows = await em.execute<RenderRow[]>(`SELECT * FROM document_renders WHERE id = ? AND organization_id = ? AND environment = ?`, [id, s.organizationId, s.environment]);
  return rows[0];
}
