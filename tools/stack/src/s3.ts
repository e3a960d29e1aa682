import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

/** The environment of the services that need S3 (`s3: true` in the manifest), pointing at s3rver. */
export interface LocalS3 {
  env: Record<string, string>;
  port: number;
  /** Where s3rver keeps the objects (each as <bucket>/<key>._S3rver_object). */
  dir: string;
  /** Stops the server (its data stays in the folder, so start() brings the same objects back). */
  stop(): Promise<void>;
  start(): Promise<void>;
}

export const LOCAL_S3_BUCKET = 'accounting-documents';

/**
 * An S3-compatible server from npm (s3rver) for `npm start` and the tests, used when no S3_ENDPOINT
 * is set: data in `dir` (a temporary folder by default), the documents bucket created.
 */
export async function startLocalS3(opts: { dir?: string; port?: number } = {}): Promise<LocalS3> {
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'acct-s3-'));
  fs.mkdirSync(dir, { recursive: true });
  let port = opts.port ?? 0;
  let server: S3rver | undefined;
  const start = async () => {
    server = new S3rver({ address: '127.0.0.1', port, silent: true, directory: dir, configureBuckets: [{ name: LOCAL_S3_BUCKET }] });
    ({ port } = await server.run());
  };
  await start();
  return {
    port,
    dir,
    env: {
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_REGION: 'us-east-1',
      S3_BUCKET: LOCAL_S3_BUCKET,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    },
    start,
    stop: async () => {
      const s = server;
      server = undefined;
      await s?.close();
    },
  };
}
