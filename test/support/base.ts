import { randomBytes } from 'node:crypto';
import { AppError } from '@acct/contracts';
import pino from 'pino';
import { dropDatabase, ensureDatabase, type Logger } from '@acct/kit';

/** Shared by every run on the machine: each test run takes its own database and NATS prefix. */
export const PG_SERVER_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A brand-new database, dropped by drop(). */
export async function freshDatabase(prefix = 'acct_it'): Promise<TestDatabase> {
  const u = new URL(PG_SERVER_URL);
  u.pathname = `/${uniqueName(prefix)}`;
  const url = u.toString();
  await ensureDatabase(url);
  return { url, drop: () => dropDatabase(url) };
}

/**
 * Rate limits out of the way, for a stack whose tests send many requests per second from one address
 * on purpose (e2e files, the fault suite). Rate limits have tests of their own.
 */
export const NO_RATE_LIMITS = { RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000', RATE_LIMIT_CLIENT_RPS: '100000', RATE_LIMIT_CLIENT_BURST: '100000' } as const;

/** A NATS subject prefix (and stream name prefix) no other run uses. */
export function uniquePrefix(): string {
  return uniqueName('t').replace(/_/g, '-');
}

export function silentLogger(): Logger {
  return pino({ level: process.env.TEST_LOG ?? 'silent' });
}

export async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, stepMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('waitFor: condition not met in time');
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** The first row of a query result; throws (failing the test) when there is none. */
export function firstRow<T>(rows: readonly T[]): T {
  const [row] = rows;
  if (row === undefined) throw new Error('expected a row, got none');
  return row;
}

/** Runs fn and returns the AppError it throws (fails the test if it throws nothing or another error). */
export function caught(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an AppError, but nothing was thrown');
}
