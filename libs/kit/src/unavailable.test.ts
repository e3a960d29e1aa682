import { ConnectionException, DriverException, UniqueConstraintViolationException } from '@mikro-orm/core';
import pino from 'pino';
import { isBackendUnavailable, logRetriedFailure } from './unavailable';

/** An error as MikroORM hands it on: a DriverException (or subclass) built from the driver's error. */
function wrapped<T extends Error>(Cls: new (e: Error) => T, message: string, props: Record<string, unknown> = {}): T {
  return new Cls(Object.assign(new Error(message), props));
}

class KnexTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KnexTimeoutError';
  }
}

describe('isBackendUnavailable', () => {
  it.each([
    ['connection refused', { code: 'ECONNREFUSED' }],
    ['connection reset', { code: 'ECONNRESET' }],
    ['admin shutdown 57P01', { code: '57P01', message: 'terminating connection due to administrator command' }],
    ['crash shutdown 57P02', { code: '57P02' }],
    ['starting up 57P03', { code: '57P03', message: 'the database system is starting up' }],
    ['class 08 (any subclass)', { code: '08P01' }],
    ['the database is gone', { sqlState: '3D000' }],
    ['too many connections', { code: '53300' }],
    ['pg: connection terminated', { message: 'Connection terminated unexpectedly' }],
    ['pg: connect timeout', { message: 'Connection terminated due to connection timeout' }],
    ['pg: client errored', { message: 'Client has encountered a connection error and is not queryable' }],
    ['knex pool timeout', new KnexTimeoutError('Knex: Timeout acquiring a connection. The pool is probably full.')],
    ['a cause chain', { message: 'wrapped', cause: { code: '08006' } }],
    ['every address of a name refused', Object.assign(new AggregateError([{ code: 'ECONNREFUSED' }, { code: 'ECONNREFUSED' }]), {})],
  ])('%s is an outage', (_what, e) => {
    expect(isBackendUnavailable(e)).toBe(true);
  });

  it.each([
    // MikroORM keeps the code of the error it wraps, and prefixes a failed query's SQL to its message.
    ['57P01 in a DriverException', wrapped(DriverException, 'update "bills" set ... - terminating connection due to administrator command', { code: '57P01' })],
    ['a lost connection under a query', wrapped(DriverException, 'select "b0".* from "payables"."bills" as "b0" ... for update - Connection terminated unexpectedly')],
    ['a query on a client that errored', wrapped(DriverException, 'INSERT INTO vendor_payments ... - Client has encountered a connection error and is not queryable')],
    ['the pool timeout once wrapped', wrapped(DriverException, 'Knex: Timeout acquiring a connection. The pool is probably full. Are you missing a .transacting(trx) call?')],
    ['a ConnectionException', wrapped(ConnectionException, 'connection lost')],
  ])('%s is an outage', (_what, e) => {
    expect(isBackendUnavailable(e)).toBe(true);
  });

  it.each([
    ['a unique violation', { code: '23505' }],
    ['a unique violation, wrapped', wrapped(UniqueConstraintViolationException, 'insert ... - duplicate key value violates unique constraint', { code: '23505' })],
    ['a missing table', { code: '42P01' }],
    ['a deadlock', { code: '40P01' }],
    ['a bug', new Error('boom')],
    // Using a transaction after it ended is a bug; after a lost connection the kit reports the connection's error instead (db.ts).
    ['a query on a finished transaction', wrapped(DriverException, 'Transaction query already complete, run with DEBUG=knex:tx for more info')],
    ['a message that merely mentions a connection', new Error('Vendor "Connection terminated" not found')],
    ['nothing', undefined],
    ['a string', 'ECONNREFUSED'],
  ])('%s is not', (_what, e) => {
    expect(isBackendUnavailable(e)).toBe(false);
  });
});

describe('logRetriedFailure', () => {
  function capture() {
    const lines: Record<string, any>[] = [];
    return { lines, log: pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l)) }) };
  }

  it('logs an outage as a warning with its code, without a stack', () => {
    const { lines, log } = capture();
    const e = wrapped(DriverException, `insert into "applied" ("email") values ('ada@example.com') - terminating connection due to administrator command`, { code: '57P01' });
    logRetriedFailure(log, e, { consumer: 'c' }, 'applying an event failed');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        consumer: 'c',
        database_unavailable: true,
        error: { code: '57P01', message: 'terminating connection due to administrator command' },
        msg: 'applying an event failed (database unavailable)',
      }),
    ]);
    expect(lines[0]).not.toHaveProperty('err');
    expect(JSON.stringify(lines)).not.toContain('ada@example.com');
  });

  it('logs anything else as an error with the stack', () => {
    const { lines, log } = capture();
    logRetriedFailure(log, new Error('boom'), { delivery_id: 'd' }, 'delivery bookkeeping failed');
    expect(lines).toEqual([
      expect.objectContaining({ level: 50, delivery_id: 'd', msg: 'delivery bookkeeping failed', err: expect.objectContaining({ message: 'boom', stack: expect.any(String) }) }),
    ]);
  });
});
