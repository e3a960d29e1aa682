import { type VarSpec, loadConfig, v } from '@acct/kit';

export const DEFAULT_UPLOAD_MAX_BYTES = 25 * 1024 * 1024;
/** Largest logo embedded in a render (bytes); a bigger one is refused when the branding is set. */
export const LOGO_MAX_BYTES = 2 * 1024 * 1024;
/** Largest logo inlined in the portal page (a data: URL); a bigger one is left out of the page. */
export const PORTAL_LOGO_MAX_BYTES = 256 * 1024;

/** S3 settings, shared by the documents service and the local stack (which may start s3rver). */
const s3ConfigSpec = {
  S3_ENDPOINT: v.str('', 'S3 endpoint URL (MinIO, s3rver); empty means the AWS default for S3_REGION', { min: 0 }),
  S3_REGION: v.str('us-east-1', 'S3 region'),
  S3_BUCKET: v.str('accounting-documents', 'bucket of the document bytes; it must exist'),
  S3_ACCESS_KEY_ID: v.str('', 'S3 access key id; empty uses the default AWS credential chain', { min: 0 }),
  S3_SECRET_ACCESS_KEY: v.str('', 'S3 secret access key', { min: 0 }),
  S3_FORCE_PATH_STYLE: v.bool(false, 'path-style bucket URLs (MinIO, s3rver)'),
};

const documentsConfigSpec = {
  ...s3ConfigSpec,
  UPLOAD_MAX_BYTES: v.int(DEFAULT_UPLOAD_MAX_BYTES, 'largest upload, bytes (413 past it)', 1, 5 * 1024 * 1024 * 1024),
  PRESIGN_TTL_S: v.int(300, 'how long a presigned PUT or GET URL is valid, seconds', 10, 3600),
  S3_TIMEOUT_MS: v.int(
    3000,
    "bound of every S3 call (connect and answer, retries included; a streamed object's socket idle this long fails it), ms; keep it below the gateway's RPC_TIMEOUT_MS so this service answers 503 (and cleans up) first",
    100,
    120_000,
  ),
  PENDING_UPLOAD_TTL_S: v.int(3600, 'an upload reserved but never finalized is removed (row and object) after this, seconds', 60, 7 * 86_400),
  PUBLIC_BASE_URL: v.url('http://localhost:8080', "the gateway's public URL (scheme, host, optional path), used to build customer portal links", ['http', 'https']),
  DOCUMENTS_RPC_TIMEOUT_MS: v.int(5000, 'timeout of the calls this service makes (record lookups for links)', 100, 60_000),
} satisfies Record<string, VarSpec<unknown>>;

export type DocumentsConfig = ReturnType<typeof loadDocumentsConfig>;
export const loadDocumentsConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(documentsConfigSpec, env);
