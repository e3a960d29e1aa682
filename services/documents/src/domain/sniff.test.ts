import { allowedBinaryType, documentStatus, looksLikeText, textType } from './sniff';

describe('sniffing rules', () => {
  it('allows the documented binary types only', () => {
    expect(allowedBinaryType('application/pdf')).toBe('application/pdf');
    expect(allowedBinaryType('image/heif')).toBe('image/heic');
    expect(allowedBinaryType('application/zip')).toBeUndefined();
    expect(allowedBinaryType('application/x-msdownload')).toBeUndefined();
    expect(allowedBinaryType(undefined)).toBeUndefined();
  });

  it('takes UTF-8 without control characters as text, even when a code point is cut at the sample end', () => {
    expect(looksLikeText(Buffer.from('a,b\r\n1,2\n'), true)).toBe(true);
    expect(looksLikeText(Buffer.from('x\u0000y'), true)).toBe(false);
    expect(looksLikeText(Buffer.from([0xff, 0xfe, 0x41]), true)).toBe(false);
    const euro = Buffer.from('price €');
    expect(looksLikeText(euro.subarray(0, euro.length - 1), false)).toBe(true);
    expect(looksLikeText(euro.subarray(0, euro.length - 1), true)).toBe(false);
  });

  it('calls text CSV when declared or named so', () => {
    expect(textType('text/csv; charset=utf-8', 'a.txt')).toBe('text/csv');
    expect(textType('', 'EXPORT.CSV')).toBe('text/csv');
    expect(textType('text/plain', 'a.txt')).toBe('text/plain');
  });

  it('needs review for a missing or other type, or a declared type that disagrees', () => {
    expect(documentStatus('receipt', 'application/pdf', 'application/pdf')).toBe('uploaded');
    expect(documentStatus('receipt', 'application/octet-stream', 'application/pdf')).toBe('uploaded');
    expect(documentStatus('receipt', 'image/jpg', 'image/jpeg')).toBe('uploaded');
    expect(documentStatus(null, 'application/pdf', 'application/pdf')).toBe('needs_review');
    expect(documentStatus('other', 'application/pdf', 'application/pdf')).toBe('needs_review');
    expect(documentStatus('receipt', 'image/png', 'application/pdf')).toBe('needs_review');
  });
});
