import { DOCUMENT_CONTENT_TYPES, type DocumentContentType, type DocumentType } from '@acct/contracts';

/** How many leading bytes sniffing reads (file-type needs 4100; text checks use more). */
export const SNIFF_BYTES = 64 * 1024;

const ALLOWED = new Set<string>(DOCUMENT_CONTENT_TYPES);
const ALIASES: Record<string, DocumentContentType> = { 'image/heif': 'image/heic', 'image/jpg': 'image/jpeg' };

/** A magic-number type from file-type, narrowed to the allowed ones (undefined: not allowed). */
export function allowedBinaryType(mime: string | undefined): DocumentContentType | undefined {
  if (!mime) return undefined;
  const m = ALIASES[mime] ?? mime;
  return ALLOWED.has(m) ? (m as DocumentContentType) : undefined;
}

/**
 * Bytes with no magic number are allowed only as text: valid UTF-8 (a code point cut at the end
 * of the sample is fine) without NUL or other control characters than tab, CR, LF and FF.
 */
export function looksLikeText(head: Buffer, complete: boolean): boolean {
  if (head.length === 0) return true;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(head.toString('latin1'))) return false;
  let sample = head;
  if (!complete) {
    // Drop a code point cut by the sample's end (at most 3 continuation bytes plus its lead byte).
    let i = sample.length - 1;
    while (i > 0 && i >= sample.length - 4 && (sample[i]! & 0xc0) === 0x80) i--;
    if (i >= 0 && sample[i]! >= 0xc0) sample = sample.subarray(0, i);
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample);
    return true;
  } catch {
    return false;
  }
}

/** Text is CSV when the client says so (declared type or .csv name), plain text otherwise. */
export function textType(declared: string, fileName: string): DocumentContentType {
  return declared.split(';')[0]!.trim().toLowerCase() === 'text/csv' || /\.csv$/i.test(fileName) ? 'text/csv' : 'text/plain';
}

/** API-DECISIONS §5: needs_review when the type is missing or other, or the declared type disagrees with the sniffed one. */
export function documentStatus(documentType: DocumentType | null, declared: string, sniffed: DocumentContentType): 'uploaded' | 'needs_review' {
  const d = declared.split(';')[0]!.trim().toLowerCase();
  const declaredMatches = d === '' || d === 'application/octet-stream' || (ALIASES[d] ?? d) === sniffed;
  return documentType === null || documentType === 'other' || !declaredMatches ? 'needs_review' : 'uploaded';
}
