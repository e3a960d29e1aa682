import type { Orm } from './db';
import { inScope, type Scope, type ScopedRow } from './scope';
import { type EntityRows, withQuery } from './sql';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The most ids one statement reads; more wait for the next. */
export const GETS_PER_STATEMENT = 100;

interface Waiter {
  resolve: (row: Record<string, unknown> | undefined) => void;
  reject: (err: unknown) => void;
}

/**
 * Gets by primary key that arrive in the same turn of the event loop (one read of the bus's socket
 * often carries several requests), read by one statement, `id = ANY(?)`, on one connection of the
 * pool: one round trip, one parse of a row description and one statement for Postgres, where each
 * get alone makes its own. The statement runs once the turn's requests are in (setImmediate), so a
 * get waits for no timer; it is a fresh statement outside any transaction, so every write committed
 * before the request was sent is in it (read-your-writes). The scope is checked on each row, as by
 * getInScope: a row of another scope is not found. A failed statement fails every get it carried,
 * as each would have failed alone.
 */
export class BatchedGets<E extends ScopedRow> {
  private pending = new Map<string, Waiter[]>();
  private scheduled = false;
  private readonly uuidKeys: boolean;

  constructor(
    private readonly orm: Orm,
    private readonly rows: EntityRows<E>,
  ) {
    this.uuidKeys = rows.idType === 'uuid';
  }

  /** The row of the scope with this id, or null. */
  get(id: string, scope: Scope): Promise<E | null> {
    // Not a key the column can hold: no row has it (and it must not fail the statement it would share).
    if (this.uuidKeys && !UUID.test(id)) return Promise.resolve(null);
    const key = this.uuidKeys ? id.toLowerCase() : id;
    return new Promise<Record<string, unknown> | undefined>((resolve, reject) => {
      const waiters = this.pending.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.pending.set(key, [{ resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    }).then((row) => {
      if (!row) return null;
      const e = this.rows.read(row);
      return inScope(e, scope) ? e : null;
    });
  }

  private flush(): void {
    this.scheduled = false;
    const all = this.pending;
    this.pending = new Map();
    const keys = [...all.keys()];
    for (let i = 0; i < keys.length; i += GETS_PER_STATEMENT) {
      const part = keys.slice(i, i + GETS_PER_STATEMENT);
      void this.read(part, all);
    }
  }

  private async read(keys: string[], waiters: Map<string, Waiter[]>): Promise<void> {
    try {
      // One id alone (a quiet service): the by-id statement. Postgres plans `id = ANY(?)` at every
      // run (a plan costed on the array given always looks cheaper than the generic one, so it never
      // keeps one: pg_prepared_statements counts custom plans only), which cost 0.06 ms more per get
      // at 1 client (bench:compare BENCH_CLIENTS=1: Postgres CPU per GET 0.116 -> 0.179 ms); shared
      // by several gets, that planning is worth its round trips.
      const found = await withQuery(this.orm, (q) => (keys.length === 1 ? q(this.rows.byId, keys) : q(this.rows.byIds, [keys])));
      const byKey = new Map<string, Record<string, unknown>>();
      for (const row of found) byKey.set(this.uuidKeys ? String(row.id).toLowerCase() : String(row.id), row);
      for (const k of keys) for (const w of waiters.get(k)!) w.resolve(byKey.get(k));
    } catch (err) {
      for (const k of keys) for (const w of waiters.get(k)!) w.reject(err);
    }
  }
}
