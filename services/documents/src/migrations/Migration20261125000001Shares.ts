import { Migration } from '@mikro-orm/migrations';

const SQL = `
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

/** Renders (PDFs of invoices and estimates, bytes in S3) and the shares that publish them on the portal. */
export class Migration20261125000001Shares extends Migration {
  override async up(): Promise<void> {
    this.addSql(SQL);
  }
}
