import { connect, type JetStreamManager, type NatsConnection } from 'nats';
import { eventsStreamName } from '@acct/contracts';
import { type MigrationDef, Outbox, type Orm, type ServiceMetrics, ensureEventsStream, migrate, openOrm } from '@acct/kit';
import { NATS_URL, freshDatabase, silentLogger, uniquePrefix, type TestDatabase } from '@acct/testing';
import { Books } from '../books';
import { withPostingMigrations } from '../migrations';

/** What the posting library's integration tests run on: Books of a made-up service over real Postgres and JetStream. */
export interface BooksBed {
  db: TestDatabase;
  orm: Orm;
  nc: NatsConnection;
  jsm: JetStreamManager;
  prefix: string;
  books: Books;
  /** Deletes the stream, closes the connections, drops the database. */
  stop(): Promise<void>;
}

/**
 * A fresh database whose `schema` holds the posting migrations (and `own`), an events stream of a
 * prefix of its own, and Books on them, posting as receivables (processor payouts are its postings).
 */
export async function booksBed(database: string, opts: { schema: string; own?: MigrationDef[]; poolMax?: number; metrics?: ServiceMetrics }): Promise<BooksBed> {
  const db = await freshDatabase(database);
  const orm = await openOrm({ url: db.url, schema: opts.schema, entities: [], migrations: withPostingMigrations(opts.own ?? []), poolMax: opts.poolMax ?? 6 });
  await migrate(orm);
  const nc = await connect({ servers: NATS_URL });
  const prefix = uniquePrefix();
  const jsm = await ensureEventsStream(nc, prefix);
  const books = new Books(orm, new Outbox(nc, orm, silentLogger()), prefix, 'receivables', opts.metrics);
  const stop = async () => {
    await jsm.streams.delete(eventsStreamName(prefix)).catch(() => undefined);
    await nc.close();
    await orm.close(true);
    await db.drop();
  };
  return { db, orm, nc, jsm, prefix, books, stop };
}
