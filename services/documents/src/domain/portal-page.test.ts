import { escapeHtml, portalPage } from './portal-page';
import { invoiceView } from './view';
import { invoice, settings } from './fixtures.test-data';

describe('the portal page', () => {
  it('escapes every character that could open markup or leave an attribute', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&\``)).toBe('&#60;a href=&#34;x&#34; onclick=&#39;y&#39;&#62;&#38;&#96;');
  });

  it('shows the invoice, its status and balance, and escapes hostile fields', () => {
    const evil = '<img src=x onerror=alert(1)>"\'\u202e\u0000';
    const view = invoiceView(
      { ...invoice, invoice_number: evil, line_items: [{ description: evil, quantity: 1, unit_amount_cents: 1, amount_cents: 1 }], memo: evil },
      { ...settings, customer: { ...settings.customer, name: evil }, branding: { ...settings.branding, business_name: evil, primary_color: '#aa0000' } },
    );
    const html = portalPage({ view, pdfHref: './tok/pdf', nonce: 'abcdefghijklmnop' });
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('\u202e');
    expect(html).not.toContain('\u0000');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;&#34;&#39;');
    expect(html).toContain('<style nonce="abcdefghijklmnop">');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('Partially paid');
    expect(html).toContain('$1,000.00');
    expect(html).toContain('href="./tok/pdf"');
  });

  it('puts only a #RRGGBB colour into the stylesheet', () => {
    const view = invoiceView(invoice, settings);
    const html = portalPage({ view: { ...view, business: { ...view.business, color: 'red;}</style><script>' } }, pdfHref: 'p', nonce: 'abcdefghijklmnop' });
    expect(html).not.toContain('</style><script>');
    expect(html).toContain('#1f3a5f');
  });
});
