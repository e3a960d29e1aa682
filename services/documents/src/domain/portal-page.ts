import { displayText } from './text';
import type { RecordView } from './view';

/** HTML-escapes text for element content and quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

const t = (s: string) => escapeHtml(displayText(s));
/** Only #RRGGBB reaches the stylesheet (settings validate it; checked again here). */
const safeColor = (c: string) => (/^#[0-9A-Fa-f]{6}$/.test(c) ? c : '#1f3a5f');

interface PortalPageInput {
  view: RecordView;
  /** The link to the PDF, relative to the page. */
  pdfHref: string;
  /** The per-response nonce the Content-Security-Policy allows styles by. */
  nonce: string;
  /** data: URL of the logo (PNG or JPEG), if any. */
  logoDataUrl?: string;
}

/** The customer portal page of a shared invoice or estimate: static HTML, no scripts. */
export function portalPage({ view, pdfHref, nonce, logoDataUrl }: PortalPageInput): string {
  const color = safeColor(view.business.color);
  const heading = `${view.title} ${view.number}`;
  const para = (title: string, body: string | null) => (body ? `<section><h2>${t(title)}</h2><p class="pre">${t(body)}</p></section>` : '');
  const rows = view.lines
    .map((l) => `<tr><td>${t(l.description)}</td><td class="num">${t(l.quantity)}</td><td class="num">${t(l.unit)}</td><td class="num">${t(l.amount)}</td></tr>`)
    .join('');
  const totals = view.totals.map((x) => `<tr${x.strong ? ' class="strong"' : ''}><th colspan="3">${t(x.label)}</th><td class="num">${t(x.value)}</td></tr>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${t(heading)}${view.business.name ? ` · ${t(view.business.name)}` : ''}</title>
<style nonce="${escapeHtml(nonce)}">
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; background: #f4f5f7; color: #111; }
  header { background: ${color}; color: #fff; padding: 16px 24px; display: flex; align-items: center; justify-content: space-between; }
  header img { max-height: 48px; max-width: 160px; background: #fff; padding: 4px; border-radius: 4px; }
  main { max-width: 860px; margin: 24px auto; background: #fff; padding: 24px 32px; border-radius: 8px; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  h1 { margin: 0 0 8px; font-size: 1.6rem; }
  h2 { font-size: 1rem; margin: 20px 0 4px; color: ${color}; }
  .status { display: inline-block; padding: 2px 10px; border-radius: 999px; background: #eef; border: 1px solid ${color}; font-size: .9rem; }
  .balance { font-size: 1.3rem; margin: 12px 0; }
  dl { display: grid; grid-template-columns: max-content auto; gap: 4px 16px; margin: 12px 0; }
  dt { color: #555; }
  dd { margin: 0; }
  table { width: 100%; border-collapse: collapse; margin-top: 16px; }
  th, td { padding: 6px 8px; border-bottom: 1px solid #e3e3e3; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
  thead th { color: ${color}; border-bottom: 2px solid ${color}; }
  tfoot th { text-align: right; font-weight: normal; }
  tfoot tr.strong th, tfoot tr.strong td { font-weight: bold; }
  .num { text-align: right; white-space: nowrap; }
  .pre { white-space: pre-wrap; overflow-wrap: anywhere; }
  a.pdf { display: inline-block; margin-top: 20px; padding: 8px 16px; background: ${color}; color: #fff; border-radius: 4px; text-decoration: none; }
  footer { color: #666; font-size: .85rem; margin-top: 24px; }
</style>
</head>
<body>
<header><strong>${t(view.business.name ?? '')}</strong>${logoDataUrl ? `<img src="${escapeHtml(logoDataUrl)}" alt="">` : ''}</header>
<main>
<h1>${t(heading)}</h1>
<p><span class="status" data-status="${t(view.status)}">${t(view.status)}</span></p>
${view.balanceDue !== null ? `<p class="balance">Balance due: <strong data-field="balance_due">${t(view.balanceDue)}</strong></p>` : ''}
<dl>
${view.dates.map((d) => `<dt>${t(d.label)}</dt><dd>${t(d.value)}</dd>`).join('\n')}
<dt>Bill to</dt><dd>${t(view.customer.name)}${view.customer.email ? `<br>${t(view.customer.email)}` : ''}</dd>
</dl>
<table>
<thead><tr><th>Description</th><th class="num">Qty</th><th class="num">Unit price</th><th class="num">Amount</th></tr></thead>
<tbody>${rows}</tbody>
<tfoot>${totals}</tfoot>
</table>
${para('Payment instructions', view.kind === 'invoice' ? view.business.instructions : null)}
${para('Terms', view.terms)}
${para('Memo', view.memo)}
<a class="pdf" href="${escapeHtml(pdfHref)}" rel="noopener noreferrer">Download PDF</a>
${view.footer ? `<footer class="pre">${t(view.footer)}</footer>` : ''}
</main>
</body>
</html>
`;
}
