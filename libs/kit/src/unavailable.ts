/**
 * Whether an error means a backing service (Postgres) is unreachable or refusing work, as opposed
 * to a bug: those answer 503 service_unavailable (retry later), not 500.
 */
const CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
  '08000', // connection_exception
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08003', // connection_does_not_exist
  '08004', // sqlserver_rejected_establishment_of_sqlconnection
  '08006', // connection_failure
  '3D000', // invalid_catalog_name: the database is gone
  '53300', // too_many_connections
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, recovering)
]);
const MESSAGES = /Connection terminated|Timeout acquiring a connection|connect ECONNREFUSED|Client has encountered a connection error|pool is (probably )?(full|destroyed)/i;

/** A code or message as text; anything but a string or number counts as none. */
function text(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' ? String(v) : '';
}

export function isBackendUnavailable(e: unknown): boolean {
  let x = e as { code?: unknown; sqlState?: unknown; message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; x && depth < 5; depth++) {
    if (CODES.has(text(x.code)) || CODES.has(text(x.sqlState))) return true;
    if (MESSAGES.test(text(x.message))) return true;
    x = x.cause as typeof x;
  }
  return false;
}
