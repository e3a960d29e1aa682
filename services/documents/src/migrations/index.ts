import { type MigrationDef, ddlMigration } from '@acct/kit';

const V1 = `
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

/** Renders (PDFs of invoices and estimates, bytes in S3) and the shares that publish them on the portal. */
const V2 = `
  CREATE TABLE document_renders (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    environment text NOT NULL CHECK (environment IN ('test', 'live')),
    record_type text NOT NULL CHECK (record_type IN ('invoice', 'estimate')),
    record_id uuid NOT NULL,
    status text NOT NULL CHECK (status = 'ready'),
    file_name text NOT NULL,
    size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
    sha256 text NOT NULL,
    storage_key text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL
  );

  CREATE TABLE document_shares (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    connected_app_id uuid NOT NULL,
    environment text NOT NULL CHECK (environment IN ('test', 'live')),
    api_key_id uuid NOT NULL,
    record_type text NOT NULL CHECK (record_type IN ('invoice', 'estimate')),
    record_id uuid NOT NULL,
    render_id uuid NOT NULL REFERENCES document_renders(id),
    token text NOT NULL UNIQUE,
    status text NOT NULL CHECK (status IN ('active', 'revoked')),
    created_at timestamptz NOT NULL,
    revoked_at timestamptz,
    CONSTRAINT document_shares_revoked CHECK ((status = 'revoked') = (revoked_at IS NOT NULL))
  );
`;

/**
 * Objects of discarded uploads still to delete from the store: the reservation's row goes at once,
 * its key waits here while the store is down or frozen, and the sweeper deletes the object later.
 */
const V3 = `
  CREATE TABLE discarded_objects (
    storage_key text PRIMARY KEY,
    discarded_at timestamptz NOT NULL
  );
  CREATE INDEX discarded_objects_age ON discarded_objects (discarded_at);
`;

export const migrations: MigrationDef[] = [
  { name: 'Migration20261124000010Documents', class: ddlMigration(V1) },
  { name: 'Migration20261125000001Shares', class: ddlMigration(V2) },
  { name: 'Migration20261201000001DiscardedObjects', class: ddlMigration(V3) },
];
