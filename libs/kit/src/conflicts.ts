/**
 * Concurrent writers of one schema (replicas of a consumer): the transient conflicts Postgres
 * resolves by aborting one transaction, and a lock order that avoids them.
 */

/** deadlock_detected and serialization_failure: the transaction did nothing wrong and succeeds when run again. */
const CONFLICT_CODES = new Set(['40P01', '40001']);

/** The SQLSTATE of a transient conflict anywhere in an error's cause chain (MikroORM wraps pg's), else undefined. */
export function conflictCode(e: unknown): string | undefined {
  let x = e as { code?: unknown; sqlState?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; x && typeof x === 'object' && depth < 5; depth++) {
    for (const c of [x.code, x.sqlState]) if (typeof c === 'string' && CONFLICT_CODES.has(c)) return c;
    x = x.cause as typeof x;
  }
  return undefined;
}

/**
 * Runs a transaction again (a fresh one, after a short random pause) while it fails with a
 * transient conflict, at most `attempts` times in all; onRetry hears each conflict. Any other error,
 * or the last conflict, is thrown.
 */
export async function retryOnConflict<T>(run: () => Promise<T>, onRetry?: (code: string, attempt: number) => void, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      const code = conflictCode(e);
      if (!code || attempt >= attempts) throw e;
      onRetry?.(code, attempt);
      await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt));
    }
  }
}
