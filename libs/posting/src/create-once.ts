import { AppError, type RpcOk, canonicalJson } from '@acct/contracts';

/** SQLSTATE unique_violation. */
export const UNIQUE_VIOLATION = '23505';

/**
 * True when e is Postgres' unique violation of the named constraint or unique index (an external
 * id already used). Judged by SQLSTATE and constraint name (MikroORM copies both from the driver's
 * error), never by message text.
 */
export function isUniqueViolation(e: unknown, constraint: string): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const { code, constraint: name } = e as { code?: unknown; constraint?: unknown };
  return code === UNIQUE_VIOLATION && name === constraint;
}

/**
 * Runs a transaction again once if it lost a race on the named unique constraint: the second run
 * sees the winner's committed row and answers from it (replay, conflict or a failed event).
 */
export async function retryOnceOnUnique<T>(constraint: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!isUniqueViolation(e, constraint)) throw e;
    return run();
  }
}

/**
 * Retry-safe create on an external id (API-DECISIONS §1): the first create answers 201; a repeat
 * with the same content answers 200 with the existing record (replayed); different content, 409.
 */
export async function createOnce<E, B>(opts: {
  constraint: string;
  create: () => Promise<RpcOk<B>>;
  existing: () => Promise<E | null>;
  same: (existing: E) => boolean;
  reply: (existing: E) => B;
  field: string;
  what: string;
}): Promise<RpcOk<B>> {
  try {
    return await opts.create();
  } catch (e) {
    if (!isUniqueViolation(e, opts.constraint)) throw e;
  }
  const existing = await opts.existing();
  if (!existing) throw new AppError('internal_error', `${opts.what} vanished after a duplicate key.`);
  if (!opts.same(existing)) {
    throw AppError.conflict(`${opts.field.slice(1)} was already used for a ${opts.what} with different content.`, [
      { field: opts.field, issue: 'already_used', message: `Send the same content to retry, or use a new ${opts.field.slice(1)}.` },
    ]);
  }
  return { ok: true, status: 200, replayed: true, body: opts.reply(existing) };
}

/** Compares the caller's content of two creates, ignoring key order. */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
