import type { DocumentContentType, DocumentDto, DocumentType, Environment, LinkRecordType } from '@acct/contracts';

/** A row of `documents`: the metadata of one evidence file (its bytes are in S3 under storage_key). */
export interface DocumentRow {
  id: string;
  organization_id: string;
  connected_app_id: string;
  environment: Environment;
  file_name: string;
  document_type: DocumentType | null;
  source: string | null;
  status: 'pending' | 'uploaded' | 'needs_review';
  declared_content_type: string;
  content_type: DocumentContentType | null;
  size_bytes: string | number;
  sha256: string;
  storage_key: string;
  idempotency_key: string | null;
  link_record_type: LinkRecordType | null;
  link_record_id: string | null;
  created_at: Date;
  finalized_at: Date | null;
}

/** A row of `document_links`. */
export interface LinkRow {
  document_id: string;
  record_type: LinkRecordType;
  record_id: string;
  linked_at: Date;
}

/** A document as the API shows it, with its links (oldest first; the last one is `linked_record_id`). */
export function documentDto(r: DocumentRow, links: LinkRow[]): DocumentDto {
  const last = links[links.length - 1];
  return {
    id: r.id,
    file_name: r.file_name,
    document_type: r.document_type ?? 'other',
    source: r.source,
    status: r.status === 'pending' ? 'needs_review' : r.status,
    content_type: r.content_type ?? 'application/pdf',
    size_bytes: Number(r.size_bytes),
    sha256: r.sha256,
    ...(last ? { linked_record_id: last.record_id } : {}),
    links: links.map((l) => ({ record_type: l.record_type, record_id: l.record_id, linked_at: new Date(l.linked_at).toISOString() })),
    created_at: new Date(r.created_at).toISOString(),
  };
}
