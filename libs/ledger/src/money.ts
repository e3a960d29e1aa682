/**
 * Money is integer minor units (cents) held in a JS number. Every amount is a safe integer, so sums
 * of many amounts stay exact; anything that would leave the safe range is refused, never rounded.
 */

export type LedgerErrorCode = 'empty' | 'unbalanced' | 'bad_amount' | 'bad_quantity' | 'unknown_account' | 'bad_line' | 'bad_entry' | 'too_many_lines';

/** The ledger's own error vocabulary; a service maps it to its API errors (e.g. validation_failed). */
export class LedgerError extends Error {
  readonly code: LedgerErrorCode;

  constructor(code: LedgerErrorCode, message: string) {
    super(message);
    this.name = 'LedgerError';
    this.code = code;
  }
}

export function isLedgerError(e: unknown): e is LedgerError {
  return e instanceof LedgerError;
}

/** Quantities carry at most 4 decimals (API-DECISIONS §6), so ×10^4 makes them integers. */
const quantity_decimals_max = 4;
const QUANTITY_SCALE = 10n ** BigInt(quantity_decimals_max);
const QUANTITY_PATTERN = new RegExp(`^(-?)(\\d+)(?:\\.(\\d{1,${quantity_decimals_max}}))?$`);

/** quantity × 10^4 as a BigInt, read from the decimal text of the number (no float multiply). */
function scaledQuantity(quantity: number): bigint {
  // String() gives the shortest text that round-trips, i.e. the decimal the caller wrote (1.005 -> "1.005").
  const m = Number.isFinite(quantity) ? QUANTITY_PATTERN.exec(String(quantity)) : null;
  if (!m) throw new LedgerError('bad_quantity', `quantity ${quantity} must be a number with at most ${quantity_decimals_max} decimals`);
  const [, sign, whole, frac = ''] = m;
  const scaled = BigInt(whole!) * QUANTITY_SCALE + BigInt(frac.padEnd(quantity_decimals_max, '0'));
  return sign ? -scaled : scaled;
}

/**
 * quantity × unit amount, rounded half away from zero to a whole cent (API-DECISIONS §6), computed
 * exactly in BigInt: 1.005 × 100 = 100.5 -> 101, where float arithmetic would give 100.49999…
 */
export function lineAmountCents(quantity: number, unitAmountCents: number): number {
  if (!Number.isSafeInteger(unitAmountCents)) {
    throw new LedgerError('bad_amount', `unit amount ${unitAmountCents} must be a whole number of cents`);
  }
  const product = scaledQuantity(quantity) * BigInt(unitAmountCents);
  const magnitude = product < 0n ? -product : product;
  // Adding half the scale before the truncating division rounds .5 up in magnitude, i.e. away from zero.
  const roundedMagnitude = (magnitude + QUANTITY_SCALE / 2n) / QUANTITY_SCALE;
  const rounded = product < 0n ? -roundedMagnitude : roundedMagnitude;
  if (rounded > BigInt(Number.MAX_SAFE_INTEGER) || rounded < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new LedgerError('bad_amount', `line amount ${rounded} cents is out of range`);
  }
  return Number(rounded);
}

/** Sum of whole-cent amounts; refuses a non-integer term or a total outside the safe range. */
export function sumCents(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) {
    if (!Number.isSafeInteger(v)) throw new LedgerError('bad_amount', `amount ${v} is not a whole number of cents`);
    total += v;
    // A sum of safe integers is exact unless it leaves the safe range, which this catches.
    if (!Number.isSafeInteger(total)) throw new LedgerError('bad_amount', 'sum of amounts is out of range');
  }
  return total;
}

/** Asserts a safe, non-negative whole number of cents. */
export function assertCents(v: unknown, what = 'amount_cents'): asserts v is number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new LedgerError('bad_amount', `${what} must be a non-negative whole number of cents, got ${String(v)}`);
  }
}
