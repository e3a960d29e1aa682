import { FILE_NAME_MAX, sanitizeFileName } from './file-name';

describe('sanitizeFileName', () => {
  it.each([
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\receipt.pdf', 'receipt.pdf'],
    ['a\u0000b.pdf', 'ab.pdf'],
    ['tab\there.txt', 'tabhere.txt'],
    ['invoice\u202Efdp.exe', 'invoicefdp.exe'],
    ['\u2066iso\u2069late.pdf', 'isolate.pdf'],
    ['zero\u200Bwidth.pdf', 'zerowidth.pdf'],
    ['.hidden', 'hidden'],
    ['...', 'file'],
    ['', 'file'],
    ['dir/', 'file'],
    ['reçu “final”.pdf', 'reçu “final”.pdf'],
  ])('%j → %j', (raw, shown) => {
    expect(sanitizeFileName(raw)).toBe(shown);
  });

  it('cuts long names on a code point boundary', () => {
    expect(sanitizeFileName('x'.repeat(300))).toBe('x'.repeat(FILE_NAME_MAX));
    const emoji = sanitizeFileName('😀'.repeat(200));
    expect(emoji.length).toBeLessThanOrEqual(FILE_NAME_MAX);
    expect(emoji).toBe('😀'.repeat(Math.floor(FILE_NAME_MAX / 2)));
  });
});
