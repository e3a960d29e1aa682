import { pdfTextOf as textOf } from '@acct/testing';
import { renderPdf, pdfText } from './pdf';
import { invoiceView } from './view';
import { invoice, settings } from './fixtures.test-data';

describe('PDF renders', () => {
  it('keeps what the standard fonts can show and drops controls, bidi overrides and lone surrogates', () => {
    expect(pdfText('Café – “quoted” €5')).toBe('Café – “quoted” €5');
    expect(pdfText('a\u0000b\u202ec\u2066d\ud800e')).toBe('abcd?e');
    expect(pdfText('中文 ✓')).toBe('?? ?');
    expect(pdfText('ﬁ')).toBe('fi'); // NFKC
  });

  it('is a real PDF holding the number, dates, customer, lines, totals, branding, instructions, terms, memo and footer', async () => {
    const pdf = await renderPdf({ view: invoiceView(invoice, settings) });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await textOf(pdf);
    for (const s of [
      'Acme Books',
      'Invoice INV-0042',
      '2026-11-01',
      '2026-12-01',
      'Ada Lovelace',
      'ada@example.com',
      'Consulting',
      'Travel',
      '$1,234.56',
      '$1,384.56',
      'Balance due',
      '$1,000.00',
      'Wire to 123',
      'Net 15',
      'Thanks!',
      'Acme Inc., 1 Main St',
    ]) {
      expect({ s, found: text.includes(s) }).toEqual({ s, found: true });
    }
  });

  it('breaks 500 long lines over pages and survives hostile text and an unreadable logo', async () => {
    const lines = Array.from({ length: 500 }, (_, i) => ({ description: `Line ${i} ${'x'.repeat(200)} \u202e\u0000 中`, quantity: 1, unit_amount_cents: 1, amount_cents: 1 }));
    const view = invoiceView({ ...invoice, line_items: lines, invoice_number: '<script>alert(1)</script>' }, settings);
    const pdf = await renderPdf({ view, logo: Buffer.from('not an image') });
    const text = await textOf(pdf);
    expect(text).toContain('Line 499');
    expect(text).toContain('<script>alert(1)</script>');
    expect(Number(/-- 1 of (\d+) --/.exec(text)?.[1])).toBeGreaterThan(5);
  });
});
