import { type Logger, postgresMessage } from './logger';

/**
 * Whether an error means a backing service (Postgres) is unreachable or refusing work, as opposed
 * to a bug: those answer 503 service_unavailable with Retry-After (retry later), never 500, and
 * background work logs them as a warning and retries.
 *
 * Judged by the error's class and SQLSTATE first: a socket error code, SQLSTATE class 08
 * (connection exception), 57P01-57P03 (the server shutting down, crashed or starting up), 53300
 * (too many connections), 3D000 (the database is gone), MikroORM's ConnectionException and knex's
 * KnexTimeoutError (no pool connection in time). Only the errors node-postgres raises itself on a
 * lost connection, and knex's pool timeout once wrapped, carry neither: they are known by their
 * fixed text.
 *
 * A BEGIN whose connection died leaves knex's transaction completed, and its first query would
 * fail with "Transaction query already complete" (no code, no cause): the kit makes such a begin
 * throw the connection's error instead (keepTheFirstError in db.ts).
 */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);
const SQLSTATES = new Set([
  '3D000', // invalid_catalog_name: the database is gone
  '53300', // too_many_connections
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, recovering)
]);
/** SQLSTATE class 08: connection_exception and every subclass (08000, 08001, 08003, 08004, 08006, 08P01). */
const CONNECTION_CLASS = /^08[0-9A-Z]{3}$/;
const CLASSES = new Set(['ConnectionException', 'KnexTimeoutError']);
/**
 * Errors with neither a code nor a class left to judge by: node-postgres's own for a lost or unusable
 * connection, and knex's pool timeout once MikroORM has wrapped it in a DriverException (which keeps
 * the message only, after the SQL and ` - ` when a query failed).
 */
const CODELESS_MESSAGES =
  /(^| - )(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|Knex: Timeout acquiring a connection)/;

/** A code or message as text; anything but a string or number counts as none. */
function text(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' ? String(v) : '';
}

function isCode(code: string): boolean {
  return SOCKET_CODES.has(code) || SQLSTATES.has(code) || CONNECTION_CLASS.test(code);
}

export function isBackendUnavailable(e: unknown): boolean {
  let x = e as { code?: unknown; sqlState?: unknown; message?: unknown; name?: unknown; cause?: unknown; errors?: unknown } | undefined;
  for (let depth = 0; x && typeof x === 'object' && depth < 5; depth++) {
    if (isCode(text(x.code)) || isCode(text(x.sqlState))) return true;
    if (CLASSES.has(text(x.name)) || CLASSES.has(text((x as object).constructor?.name))) return true;
    if (CODELESS_MESSAGES.test(text(x.message))) return true;
    // A connect to a name with several addresses fails with all of them (AggregateError).
    if (Array.isArray(x.errors) && x.errors.length > 0 && x.errors.every((inner) => isBackendUnavailable(inner))) return true;
    x = x.cause as typeof x;
  }
  return false;
}

/**
 * Logs a failure of background work (a consumer, a delivery loop, an operator command): a warning
 * without the stack when the database is unreachable (an outage, not a bug: the work is retried;
 * `database_unavailable: true` to filter on; the message without the statement and its values), an
 * error with the stack otherwise.
 */
export function logRetriedFailure(log: Logger, err: unknown, fields: Record<string, unknown>, message: string): void {
  if (isBackendUnavailable(err)) {
    const e = err as { code?: unknown; message?: unknown };
    log.warn(
      { ...fields, database_unavailable: true, error: { code: text(e?.code) || undefined, message: postgresMessage(text(e?.message)) } },
      `${message} (database unavailable)`,
    );
  } else {
    log.error({ ...fields, err }, message);
  }
}
