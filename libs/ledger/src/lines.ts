import { AppError, type ErrorDetail, type LineItemInput, limits } from '@acct/contracts';
import { isLedgerError, lineAmountCents, sumCents } from './money';

export interface LineItem {
  description: string;
  quantity: number;
  unit_amount_cents: number;
  amount_cents: number;
}

const DECIMALS = new RegExp(`^\\d+(\\.\\d{1,${limits.quantity_decimals_max}})?$`);

/** Whether a quantity has at most 4 decimals, judged on its shortest decimal spelling. */
export function quantityOk(q: number): boolean {
  return Number.isFinite(q) && q > 0 && DECIMALS.test(String(q));
}

/**
 * Line amounts (quantity × unit, rounded half away from zero) and the total (API-DECISIONS §6).
 * Refuses quantities with more than 4 decimals and totals above the amount limit.
 */
export function priceLines(items: LineItemInput[]): { lines: LineItem[]; totalCents: number } {
  const details: ErrorDetail[] = [];
  items.forEach((it, i) => {
    if (!quantityOk(it.quantity)) {
      details.push({ field: `/line_items/${i}/quantity`, issue: 'invalid_format', message: `quantity must be > 0 with at most ${limits.quantity_decimals_max} decimals.` });
    }
  });
  if (details.length) throw AppError.validation('A line item is invalid.', details);
  const lines = items.map((it, i) => ({
    description: it.description,
    quantity: it.quantity,
    unit_amount_cents: it.unit_amount_cents,
    amount_cents: lineAmount(it, i),
  }));
  const totalCents = sumCents(lines.map((l) => l.amount_cents));
  if (totalCents > limits.amount_cents_max) {
    throw AppError.validation('The total is over the amount limit.', [
      { field: '/line_items', issue: 'out_of_range', message: `The total must be at most ${limits.amount_cents_max} cents.` },
    ]);
  }
  return { lines, totalCents };
}

/** One line's amount, or 400 naming the line when it is out of range (LedgerError must not escape as a 500). */
function lineAmount(it: LineItemInput, i: number): number {
  const outOfRange = (): AppError =>
    AppError.validation('A line amount is over the amount limit.', [
      { field: `/line_items/${i}`, issue: 'out_of_range', message: `quantity × unit_amount_cents must be at most ${limits.amount_cents_max} cents.` },
    ]);
  let cents: number;
  try {
    cents = lineAmountCents(it.quantity, it.unit_amount_cents);
  } catch (e) {
    if (isLedgerError(e)) throw outOfRange();
    throw e;
  }
  if (cents > limits.amount_cents_max) throw outOfRange();
  return cents;
}

export const SUPPORTED_CURRENCIES = ['USD'] as const;

/** Only USD today; the message says so (API-DECISIONS §6). */
export function currencyOf(given: string | undefined): string {
  const c = given ?? 'USD';
  if (!(SUPPORTED_CURRENCIES as readonly string[]).includes(c)) {
    throw AppError.validation(`Currency ${c} is not supported: only USD is accepted today.`, [
      { field: '/currency', issue: 'unsupported_currency', message: 'Only USD is accepted today.' },
    ]);
  }
  return c;
}
