/**
 * CSV of a table (RFC 4180), safe to open in a spreadsheet: a cell that a spreadsheet would read as
 * a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is prefixed with `'`, so
 * a customer's name such as `=HYPERLINK(...)` stays text (OWASP "CSV injection"). Numbers stay numbers.
 */
export type CsvValue = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The header row, then one row per record; lines end with CRLF as RFC 4180 says. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvValue[])[]): string {
  return [header, ...rows].map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

/** A file name of letters, digits and dashes: `customers-2026-11-28.csv`. */
export function csvFileName(what: string, now = new Date()): string {
  const base =
    what
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'table';
  return `${base}-${now.toISOString().slice(0, 10)}.csv`;
}

/** Saves the CSV through a temporary link (a Blob URL: allowed by the page's policy, no inline script). */
export function downloadCsv(what: string, header: readonly string[], rows: readonly (readonly CsvValue[])[]): void {
  // The byte order mark makes spreadsheets read the file as UTF-8.
  const blob = new Blob(['\ufeff', toCsv(header, rows)], { type: 'text/csv;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = csvFileName(what);
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
