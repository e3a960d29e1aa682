/** Display formats: dates in the reader's locale with the time zone shown, amounts from integer cents. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString('en-GB', { year: 'numeric', month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  return iso.length >= 10 ? iso.slice(0, 10) : iso;
}

/** `123456, 'USD'` → `USD 1,234.56`; minus sign for negatives. */
export function formatCents(cents: number | null | undefined, currency = ''): string {
  if (cents === null || cents === undefined || !Number.isFinite(cents)) return '—';
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(cents));
  const units = Math.floor(abs / 100).toLocaleString('en-US');
  const text = `${sign}${units}.${String(abs % 100).padStart(2, '0')}`;
  return currency ? `${currency.toUpperCase()} ${text}` : text;
}
