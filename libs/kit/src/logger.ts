import { DriverException } from '@mikro-orm/core';
import pino, { type Logger } from 'pino';

export type { Logger };

/** Anything that could carry a credential is censored, at any of the depths we log. */
const SENSITIVE = ['authorization', 'Authorization', 'key', 'api_key', 'secret', 'test_key', 'live_key', 'password', 'token'];
const DEPTH_MAX = 4;

/** Every sensitive name at the top level and up to DEPTH_MAX levels down (pino paths are explicit). */
export const REDACT_PATHS = SENSITIVE.flatMap((name) => Array.from({ length: DEPTH_MAX + 1 }, (_, depth) => [...Array<string>(depth).fill('*'), name].join('.')));

/** SQLSTATE: five digits or capital letters (23505 unique_violation, 22P02 invalid_text_representation). */
const SQLSTATE = /^[0-9A-Z]{5}$/;

/** A MikroORM DriverException or a pg DatabaseError: both carry the statement and its values. */
export function isDatabaseError(e: unknown): e is Error & Record<string, unknown> {
  if (!(e instanceof Error)) return false;
  if (e instanceof DriverException) return true;
  const r = e as unknown as Record<string, unknown>;
  return typeof r.code === 'string' && SQLSTATE.test(r.code) && ('severity' in r || 'routine' in r || 'sqlState' in r);
}

/**
 * Postgres' own message without the statement knex puts before it ("<sql with values> - <message>"),
 * without a "Key (col)=(value)" detail and without a quoted input value at its end.
 */
export function postgresMessage(message: string): string {
  // MikroORM adds "\n\ndetail: Key (…)=(…) already exists." after the first line.
  const first = message.split('\n')[0] ?? '';
  const i = first.lastIndexOf(' - ');
  const own = i >= 0 ? first.slice(i + 3) : first;
  return own
    .replace(/Key \(.*?\)=\(.*?\)/g, 'Key (…)')
    .replace(/: ".*"$/s, '')
    .slice(0, 500);
}

/**
 * A message of the database driver (knex's "Connection Error: <error>") as logged: the error's
 * message may start with the failed statement with its values inlined ("INSERT … VALUES ('…',
 * 'ann@example.com') - Connection terminated"), so every quoted literal, every "Key (…)=(…)"
 * detail and every input value Postgres quotes after a colon (invalid input syntax …: "…") is replaced; the statement's shape and Postgres' own words stay.
 */
export function driverMessage(message: string): string {
  return message
    .replace(/'(?:[^']|'')*'?/g, "'…'")
    .replace(/Key \(.*?\)=\(.*?\)/gs, 'Key (…)')
    .replace(/: "(?:[^"]|"")*"?/g, ': "…"')
    .slice(0, 1000);
}

/**
 * A database error as logged: SQLSTATE, constraint, table, column, routine and Postgres' message,
 * never the statement, its parameters, the Key (…)=(…) detail or the where context, which carry
 * literal values (names, e-mails). The stack keeps its frames, not its message.
 */
export function serializeDatabaseError(e: Error & Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { type: e.constructor.name, message: postgresMessage(String(e.message ?? '')) };
  for (const k of ['code', 'sqlState', 'severity', 'constraint', 'table', 'schema', 'column', 'dataType', 'routine'] as const) {
    if (typeof e[k] === 'string' || typeof e[k] === 'number') out[k] = e[k];
  }
  const frames = (e.stack ?? '').split('\n').filter((l) => l.trim().startsWith('at '));
  out.stack = [`${String(out.type)}: ${String(out.message)}`, ...frames].join('\n');
  return out;
}

const CAUSES_MAX = 5;

function causedByDatabase(e: Error): boolean {
  let c: unknown = e.cause;
  for (let i = 0; i < CAUSES_MAX && c instanceof Error; i++, c = c.cause) if (isDatabaseError(c)) return true;
  return false;
}

/**
 * pino's err serializer, with database errors stripped of their values, at the top or anywhere in
 * the cause chain (pino would otherwise copy a cause's message and stack into the error's own).
 */
export function serializeError(e: unknown, depth = 0): unknown {
  if (isDatabaseError(e)) return serializeDatabaseError(e);
  if (!(e instanceof Error)) return e;
  if (depth >= CAUSES_MAX || !causedByDatabase(e)) return pino.stdSerializers.err(e);
  return { type: e.constructor.name, message: e.message, stack: e.stack, cause: serializeError(e.cause, depth + 1) };
}

/**
 * The same logger without the redaction pass, for lines whose fields are fixed and none of them
 * named like a credential (the gateway's access log line): redaction finds nothing in those, yet
 * its wildcard paths (REDACT_PATHS) cost far more than the line itself (docs/performance.md).
 */
export function unredacted(log: Logger): Logger {
  return log.child({}, { redact: { paths: [] } });
}

export function createLogger(service: string, level = 'info', destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { err: (e: unknown) => serializeError(e), error: (e: unknown) => serializeError(e) },
    },
    destination,
  );
}
