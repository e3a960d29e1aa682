import { randomUUID } from 'node:crypto';

/** A whole 1×1 PNG: file-type walks PNG chunks, so random bytes after the signature may not parse. */
export const TINY_PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082',
  'hex',
);

/** A multipart/form-data body built byte by byte, so file names can carry anything (NUL, bidi). */
export function multipart(file: { name: string; type: string; bytes: Buffer } | null, fields: Record<string, string> = {}): { body: Buffer; contentType: string } {
  const boundary = `----acct${randomUUID()}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  if (file) {
    // A NUL cannot be in a header line: it travels RFC 5987-encoded (filename*), as a client would send it.
    const disposition = file.name.includes('\u0000') ? `filename*=UTF-8''${encodeURIComponent(file.name)}` : `filename="${file.name}"`;
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; ${disposition}\r\nContent-Type: ${file.type}\r\n\r\n`, 'utf8'));
    parts.push(file.bytes, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}
