import { Migration } from '@mikro-orm/migrations';

const SQL = `
  CREATE TABLE documents (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    connected_app_id uuid NOT NULL,
    environment text NOT NULL CHECK (environment IN ('test', 'live')),
    file_name text NOT NULL,
    document_type text,
    source text,
    status text NOT NULL CHECK (status IN ('pending', 'uploaded', 'needs_review')),
    declared_content_type text NOT NULL,
    content_type text,
    size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
    sha256 text NOT NULL,
    storage_key text NOT NULL UNIQUE,
    idempotency_key text,
    link_record_type text,
    link_record_id uuid,
    created_at timestamptz NOT NULL,
    finalized_at timestamptz,
    CONSTRAINT documents_finalized CHECK ((status = 'pending') = (finalized_at IS NULL)),
    CONSTRAINT documents_typed CHECK (status = 'pending' OR content_type IS NOT NULL)
  );
  CREATE UNIQUE INDEX documents_idempotency ON documents (organization_id, environment, connected_app_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
  CREATE INDEX documents_list ON documents (organization_id, environment, created_at DESC, id DESC) WHERE status <> 'pending';
  CREATE INDEX documents_pending ON documents (created_at) WHERE status = 'pending';

  CREATE TABLE document_links (
    document_id uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    record_type text NOT NULL CHECK (record_type IN ('customer', 'invoice', 'estimate', 'vendor', 'bill')),
    record_id uuid NOT NULL,
    linked_at timestamptz NOT NULL,
    PRIMARY KEY (document_id, record_type, record_id)
  );
  CREATE INDEX document_links_record ON document_links (record_id);

  CREATE TABLE settings (
    organization_id uuid NOT NULL,
    environment text NOT NULL CHECK (environment IN ('test', 'live')),
    kind text NOT NULL CHECK (kind IN ('document_branding', 'invoice_defaults', 'estimate_defaults')),
    value jsonb NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (organization_id, environment, kind)
  );
`;

/** Documents (metadata of evidence files; the bytes are in S3), their links to records, and the settings. */
export class Migration20261124000010Documents extends Migration {
  override async up(): Promise<void> {
    this.addSql(SQL);
  }
}
