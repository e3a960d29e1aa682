import type { Readable } from 'node:stream';
import type { Counter } from 'prom-client';
import { AppError } from '@acct/contracts';
import { DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

interface StorageConfig {
  S3_ENDPOINT: string;
  S3_REGION: string;
  S3_BUCKET: string;
  S3_ACCESS_KEY_ID: string;
  S3_SECRET_ACCESS_KEY: string;
  S3_FORCE_PATH_STYLE: boolean;
  /** Bound of one S3 call, ms: until its answer, and of each pause while an object's bytes stream. */
  S3_TIMEOUT_MS?: number;
}

const DEFAULT_S3_TIMEOUT_MS = 3000;

/** What a call that ran out of time throws: isStorageUnavailable() takes it for a store that is down (503). */
class StorageTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  readonly code = 'ETIMEDOUT';
  constructor(what: string, ms: number) {
    super(`S3 ${what} did not answer within ${ms} ms`);
  }
}

interface ObjectHead {
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
  /** Bound of every call, ms (S3_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /**
   * Counts every call that fails, by operation (`s3_errors_total`, set by the service's wiring):
   * an error answer, an unreachable or frozen store. A missing object (404) is an answer, not an
   * error; a body that fails while it streams (after the call answered) is not counted here.
   */
  errors?: Counter<'operation'>;

  constructor(c: StorageConfig) {
    this.bucket = c.S3_BUCKET;
    this.timeoutMs = c.S3_TIMEOUT_MS ?? DEFAULT_S3_TIMEOUT_MS;
    const t = this.timeoutMs;
    this.client = new S3Client({
      region: c.S3_REGION,
      ...(c.S3_ENDPOINT ? { endpoint: c.S3_ENDPOINT } : {}),
      forcePathStyle: c.S3_FORCE_PATH_STYLE,
      ...(c.S3_ACCESS_KEY_ID ? { credentials: { accessKeyId: c.S3_ACCESS_KEY_ID, secretAccessKey: c.S3_SECRET_ACCESS_KEY } } : {}),
      // A store that is down or frozen must fail fast (503), not hang a request: each attempt is
      // bounded (connect, answer, and a socket idle for t while a body streams), and every call as
      // a whole by an abort signal (bounded() below), retries included.
      maxAttempts: 2,
      requestHandler: { connectionTimeout: Math.min(t, 2000), requestTimeout: t, throwOnRequestTimeout: true, socketTimeout: t },
    });
  }

  /**
   * Runs one S3 call with an abort signal that fires after timeoutMs (and a timer of its own, in
   * case a step ignores the signal). The timer stops once the call answers: a body it returns is
   * bounded by the socket idle timeout instead, so a large object may take longer than timeoutMs.
   */
  private async bounded<T>(what: string, fn: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    const ac = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = new StorageTimeoutError(what, this.timeoutMs);
        ac.abort(err);
        reject(err);
      }, this.timeoutMs);
    });
    try {
      return await Promise.race([fn(ac.signal), late]);
    } catch (e) {
      if (!isMissing(e)) this.errors?.inc({ operation: what });
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  /** `<org>/<env>/<document id>` (ARCHITECTURE.md "Documents"). */
  static key(organizationId: string, environment: string, id: string): string {
    return `${organizationId}/${environment}/${id}`;
  }

  /** Stores small bytes (a rendered PDF): the whole call is bounded by timeoutMs. */
  async put(key: string, body: Buffer, contentLength: number, contentType: string): Promise<void> {
    await this.bounded('PutObject', (abortSignal) =>
      this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: contentLength, ContentType: contentType }), { abortSignal }),
    );
  }

  /**
   * The object as a stream; undefined when there is none. The answer must come within timeoutMs;
   * then the stream fails (TimeoutError, the socket timeout) if its socket is idle for timeoutMs.
   */
  async get(key: string, range?: string): Promise<Readable | undefined> {
    try {
      const out = await this.bounded('GetObject', (abortSignal) =>
        this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, ...(range ? { Range: range } : {}) }), { abortSignal }),
      );
      return out.Body as Readable;
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
  }

  async head(key: string): Promise<ObjectHead | undefined> {
    try {
      const out = await this.bounded('HeadObject', (abortSignal) => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal }));
      return { size: Number(out.ContentLength ?? 0), ...(out.ContentType ? { contentType: out.ContentType } : {}) };
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
  }

  /** Idempotent: deleting a missing object succeeds. */
  async delete(key: string): Promise<void> {
    await this.bounded('DeleteObject', (abortSignal) => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal }));
  }

  /**
   * A URL the gateway PUTs exactly `contentLength` bytes to, valid for ttlS seconds. Signing is
   * local, but resolving credentials (the default AWS chain) may not be: bounded too.
   */
  presignPut(key: string, contentLength: number, contentType: string, ttlS: number): Promise<string> {
    return this.bounded('presign', () =>
      getSignedUrl(this.client, new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentLength: contentLength, ContentType: contentType }), { expiresIn: ttlS }),
    );
  }

  /** A URL the gateway streams the bytes from, valid for ttlS seconds. */
  presignGet(key: string, ttlS: number): Promise<string> {
    return this.bounded('presign', () => getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.bucket, Key: key }), { expiresIn: ttlS }));
  }

  /** /readyz: the bucket exists and answers (within timeoutMs: a frozen store leaves no call behind). */
  async bucketReachable(): Promise<boolean> {
    try {
      await this.bounded('HeadBucket', (abortSignal) => this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), { abortSignal }));
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
  return (
    ['TimeoutError', 'RequestTimeout', 'NoSuchBucket', 'AbortError'].includes(String(x?.name)) || /ECONNREFUSED|socket hang up|timed? ?out/i.test(String((e as Error)?.message))
  );
}

/** S3 failures that mean the store is down become 503 (retry later), never 500. */
export async function s3<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (isStorageUnavailable(e)) throw new AppError('service_unavailable', 'Document storage is unavailable. Retry later.');
    throw e;
  }
}
