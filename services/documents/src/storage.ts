import { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

export interface StorageConfig {
  S3_ENDPOINT: string;
  S3_REGION: string;
  S3_BUCKET: string;
  S3_ACCESS_KEY_ID: string;
  S3_SECRET_ACCESS_KEY: string;
  S3_FORCE_PATH_STYLE: boolean;
}

export interface ObjectHead {
  size: number;
  contentType?: string;
}

/**
 * The document bytes in one S3 bucket (@aws-sdk/client-s3 only). Keys are built here and never
 * leave the service; the gateway only ever sees short-lived presigned URLs.
 */
export class Storage {
  readonly client: S3Client;
  readonly bucket: string;

  constructor(c: StorageConfig) {
    this.bucket = c.S3_BUCKET;
    this.client = new S3Client({
      region: c.S3_REGION,
      ...(c.S3_ENDPOINT ? { endpoint: c.S3_ENDPOINT } : {}),
      forcePathStyle: c.S3_FORCE_PATH_STYLE,
      ...(c.S3_ACCESS_KEY_ID ? { credentials: { accessKeyId: c.S3_ACCESS_KEY_ID, secretAccessKey: c.S3_SECRET_ACCESS_KEY } } : {}),
      // A store that is down must fail fast (503), not hang a request.
      maxAttempts: 2,
      requestHandler: { connectionTimeout: 2000, requestTimeout: 30_000 },
    });
  }

  /** `<org>/<env>/<document id>` (ARCHITECTURE.md "Documents"). */
  static key(organizationId: string, environment: string, id: string): string {
    return `${organizationId}/${environment}/${id}`;
  }

  async put(key: string, body: Buffer | Readable, contentLength: number, contentType: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: contentLength, ContentType: contentType }));
  }

  /** The object as a stream; undefined when there is none. */
  async get(key: string, range?: string): Promise<Readable | undefined> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, ...(range ? { Range: range } : {}) }));
      return out.Body as Readable;
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
  }

  async head(key: string): Promise<ObjectHead | undefined> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: Number(out.ContentLength ?? 0), ...(out.ContentType ? { contentType: out.ContentType } : {}) };
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
  }

  /** Idempotent: deleting a missing object succeeds. */
  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /** A URL the gateway PUTs exactly `contentLength` bytes to, valid for ttlS seconds. */
  presignPut(key: string, contentLength: number, contentType: string, ttlS: number): Promise<string> {
    return getSignedUrl(this.client, new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentLength: contentLength, ContentType: contentType }), { expiresIn: ttlS });
  }

  /** A URL the gateway streams the bytes from, valid for ttlS seconds. */
  presignGet(key: string, ttlS: number): Promise<string> {
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.bucket, Key: key }), { expiresIn: ttlS });
  }

  /** /readyz: the bucket exists and answers. */
  async bucketReachable(): Promise<boolean> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return true;
    } catch {
      return false;
    }
  }

  close(): void {
    this.client.destroy();
  }
}

function isMissing(e: unknown): boolean {
  const x = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return x.name === 'NoSuchKey' || x.name === 'NotFound' || x.$metadata?.httpStatusCode === 404;
}

/** Whether an S3 error means the store is unreachable or failing (503), not a bug. */
export function isStorageUnavailable(e: unknown): boolean {
  const x = e as { name?: string; code?: string; $metadata?: { httpStatusCode?: number }; cause?: unknown };
  const status = x?.$metadata?.httpStatusCode;
  if (status !== undefined && status >= 500) return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE'].includes(String(x?.code))) return true;
  return ['TimeoutError', 'RequestTimeout', 'NoSuchBucket'].includes(String(x?.name)) || /ECONNREFUSED|socket hang up|timed? ?out/i.test(String((e as Error)?.message));
}
