/** API-DECISIONS §9: retries after 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h, 24 h. */
export const DEFAULT_RETRY_SCHEDULE = '1m,5m,30m,2h,6h,12h,24h,24h';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `250ms`, `1s`, `5m`, `2h`, `3d` → milliseconds. */
export function parseDuration(raw: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(raw.trim());
  if (!m) throw new Error(`"${raw}" is not a duration such as 30s, 5m, 2h`);
  return Number(m[1]) * UNIT_MS[m[2]!]!;
}

/** A comma-separated list of durations, e.g. `1s,2s,3s`. */
export function parseSchedule(raw: string): number[] {
  const delays = raw.split(',').map(parseDuration);
  if (delays.length === 0) throw new Error('must list at least one delay');
  return delays;
}

/** How far a retry may land from its scheduled delay, either way (API-DECISIONS §11: ±10%). */
export const RETRY_JITTER = 0.1;

/**
 * After the n-th failed attempt (1-based): the delay to the next one, or null when the delivery has
 * failed. The delay is moved by up to ±10% (`random` in [0, 1)), so deliveries that failed together
 * (an endpoint down for a minute) do not all retry in the same instant.
 */
export function retryDelay(schedule: readonly number[], attempt: number, random: () => number = Math.random): number | null {
  if (attempt < 1 || attempt > schedule.length) return null;
  const delay = schedule[attempt - 1]!;
  return Math.round(delay * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random()));
}
