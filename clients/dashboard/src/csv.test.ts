import { csvCell, csvFileName, toCsv } from './csv';

describe('CSV of a table', () => {
  it('quotes what RFC 4180 says to quote, and doubles quotes', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\rhere')).toBe('"cr\rhere"');
  });

  it.each([
    ['=1+2', "'=1+2"],
    ['+33 6 12', "'+33 6 12"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1:A2)', "'@SUM(A1:A2)"],
    ['\t=1', "'\t=1"],
    ['\r=1', '"\'\r=1"'],
    ['=HYPERLINK("http://x","y")', '"\'=HYPERLINK(""http://x"",""y"")"'],
  ])('keeps %j from being read as a formula', (input, out) => expect(csvCell(input)).toBe(out));

  it('leaves a formula character inside text, and numbers (negative too), as they are', () => {
    expect(csvCell('a=b')).toBe('a=b');
    expect(csvCell('e-mail')).toBe('e-mail');
    expect(csvCell(-1250)).toBe('-1250');
    expect(csvCell(12.5)).toBe('12.5');
    expect(csvCell(Number.NaN)).toBe('');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(true)).toBe('true');
  });

  it('writes a header and rows with CRLF line ends', () => {
    expect(
      toCsv(
        ['Name', 'Total'],
        [
          ['Acme, Inc.', 1000],
          ['=cmd', -5],
        ],
      ),
    ).toBe('Name,Total\r\n"Acme, Inc.",1000\r\n\'=cmd,-5\r\n');
  });

  it('names the file after the table and the day', () => {
    expect(csvFileName('Vendor payments', new Date('2026-11-28T10:00:00Z'))).toBe('vendor-payments-2026-11-28.csv');
    expect(csvFileName('../../etc', new Date('2026-11-28T10:00:00Z'))).toBe('etc-2026-11-28.csv');
  });
});
