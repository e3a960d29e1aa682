import PDFDocument from 'pdfkit';
import { displayText } from './text';
import type { RecordView } from './view';

/**
 * Characters the PDF's standard fonts (WinAnsi) can show; anything else becomes "?". Control and
 * bidirectional formatting characters (and lone surrogates) are dropped first, so a name cannot
 * reorder or hide the text around it.
 */
const WIN_ANSI_EXTRA = '€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ';
export function pdfText(s: string): string {
  const cleaned = displayText(s).normalize('NFKC');
  let out = '';
  for (const ch of cleaned) {
    const cp = ch.codePointAt(0)!;
    out += (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff) || ch === '\n' || ch === '\t' || WIN_ANSI_EXTRA.includes(ch) ? ch : '?';
  }
  return out;
}

interface PdfInput {
  view: RecordView;
  /** PNG or JPEG bytes of the branding logo, if any (skipped when the image cannot be read). */
  logo?: Buffer;
}

const MARGIN = 50;

type Doc = InstanceType<typeof PDFDocument>;

/** Where the line columns start and how wide each is, for a content width. */
function columns(width: number) {
  return {
    cols: { desc: MARGIN, qty: MARGIN + width * 0.55, unit: MARGIN + width * 0.67, amount: MARGIN + width * 0.83 },
    colW: { desc: width * 0.53, qty: width * 0.1, unit: width * 0.15, amount: width * 0.17 },
  };
}

/** A real PDF of an invoice or estimate (pdfkit, standard fonts), as bytes. */
export function renderPdf({ view, logo }: PdfInput): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'LETTER',
    margin: MARGIN,
    info: { Title: pdfText(`${view.title} ${view.number}`), Author: pdfText(view.business.name ?? ''), Producer: 'accounting-api' },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const width = doc.page.width - 2 * MARGIN;
  drawHeader(doc, view, logo, width);
  drawLines(doc, view, width);
  drawTotals(doc, view, width);
  drawSections(doc, view, width);
  doc.end();
  return done;
}

/** Header: a colour band, the business name, the logo on the right, the dates and who is billed. */
function drawHeader(doc: Doc, view: RecordView, logo: Buffer | undefined, width: number): void {
  const color = view.business.color;
  doc.rect(0, 0, doc.page.width, 8).fill(color);
  if (logo) {
    try {
      doc.image(logo, doc.page.width - MARGIN - 120, MARGIN - 10, { fit: [120, 60], align: 'right' });
    } catch {
      // An image pdfkit cannot read is left out rather than failing the render.
    }
  }
  doc
    .fillColor(color)
    .font('Helvetica-Bold')
    .fontSize(18)
    .text(pdfText(view.business.name ?? ''), MARGIN, MARGIN, { width: width - 130 });
  doc.moveDown(0.5);
  doc
    .fillColor('#111111')
    .fontSize(22)
    .text(pdfText(`${view.title} ${view.number}`), { width: width - 130 });
  doc.font('Helvetica').fontSize(10).fillColor('#444444');
  for (const d of view.dates) doc.text(`${d.label}: ${d.value}`);
  doc.text(`Status: ${pdfText(view.status)}`);
  doc.moveDown();
  doc.font('Helvetica-Bold').fillColor('#111111').text('Bill to');
  doc.font('Helvetica').text(pdfText(view.customer.name));
  if (view.customer.email) doc.text(pdfText(view.customer.email));
  doc.moveDown();
}

/** Lines: description wraps; a row that does not fit starts a new page (with the column header again). */
function drawLines(doc: Doc, view: RecordView, width: number): void {
  const color = view.business.color;
  const { cols, colW } = columns(width);
  const header = () => {
    const y = doc.y;
    doc.font('Helvetica-Bold').fillColor(color).fontSize(10);
    doc.text('Description', cols.desc, y, { width: colW.desc });
    doc.text('Qty', cols.qty, y, { width: colW.qty, align: 'right' });
    doc.text('Unit price', cols.unit, y, { width: colW.unit, align: 'right' });
    doc.text('Amount', cols.amount, y, { width: colW.amount, align: 'right' });
    doc
      .moveTo(MARGIN, doc.y + 2)
      .lineTo(MARGIN + width, doc.y + 2)
      .strokeColor(color)
      .stroke();
    doc.moveDown(0.5);
    doc.font('Helvetica').fillColor('#111111');
  };
  header();
  for (const line of view.lines) {
    const desc = pdfText(line.description);
    const h = doc.heightOfString(desc, { width: colW.desc });
    if (doc.y + h > bottomOf(doc)) {
      doc.addPage();
      header();
    }
    const y = doc.y;
    doc.text(desc, cols.desc, y, { width: colW.desc });
    const after = doc.y;
    doc.text(line.quantity, cols.qty, y, { width: colW.qty, align: 'right' });
    doc.text(line.unit, cols.unit, y, { width: colW.unit, align: 'right' });
    doc.text(line.amount, cols.amount, y, { width: colW.amount, align: 'right' });
    doc.y = Math.max(after, doc.y) + 4;
  }
}

const bottomOf = (doc: Doc) => doc.page.height - MARGIN;

/** Totals, right-aligned. */
function drawTotals(doc: Doc, view: RecordView, width: number): void {
  const { cols, colW } = columns(width);
  if (doc.y + 20 * view.totals.length > bottomOf(doc)) doc.addPage();
  doc.moveDown(0.5);
  for (const t of view.totals) {
    const y = doc.y;
    doc.font(t.strong ? 'Helvetica-Bold' : 'Helvetica').fontSize(t.strong ? 12 : 10);
    doc.text(t.label, cols.unit - width * 0.1, y, { width: colW.unit + width * 0.1, align: 'right' });
    doc.text(t.value, cols.amount, y, { width: colW.amount, align: 'right' });
  }
  doc.font('Helvetica').fontSize(10).fillColor('#111111');
}

/** The texts under the totals: payment instructions (invoices), terms, memo and footer, each when set. */
function drawSections(doc: Doc, view: RecordView, width: number): void {
  const section = (title: string, body: string | null) => {
    if (!body) return;
    doc.moveDown();
    if (title) doc.font('Helvetica-Bold').text(title, MARGIN, doc.y, { width });
    doc.font('Helvetica').text(pdfText(body), MARGIN, doc.y, { width });
  };
  section('Payment instructions', view.kind === 'invoice' ? view.business.instructions : null);
  section('Terms', view.terms);
  section('Memo', view.memo);
  section('', view.footer);
}
