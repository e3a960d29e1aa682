import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Reads how many events a durable consumer has not applied yet (at scrape time). */
export type PendingReader = () => Promise<number>;

/**
 * The metrics every service process exposes on its ops port (/metrics). Every series carries a
 * `service` label (the registry's default label). deploy/README.md lists them (the e2e metrics
 * test scrapes a running stack for every listed name, and the alert rules may use only those).
 */
export interface ServiceMetrics {
  registry: Registry;
  /** RED of the NATS handlers: rate, errors (outcome != ok) and duration, by operation. */
  rpcServerDuration: Histogram<'operation' | 'outcome'>;
  rpcClientDuration: Histogram<'operation' | 'outcome'>;
  outboxPublished: Counter<'kind'>;
  /** Commit of an outbox row to its publish to JetStream, by who published it. */
  outboxPublishLag: Histogram<'kind'>;
  /** A transaction's inline publish: its events sent to JetStream to the stream's last ack. */
  outboxPublishAck: Histogram;
  /** Journal entries committed (postings), by source type (invoice, payment, ...). */
  journalEntries: Counter<'source_type'>;
  /** Units of work of libs/posting Books (groups of postings), by outcome (way: committed, split, failed). */
  groupCommits: Counter<'way'>;
  /** Events a durable consumer handled, by outcome. */
  eventsConsumed: Counter<'consumer' | 'outcome'>;
  /** Publish of an event to the stream to its apply by a consumer. */
  consumerLag: Histogram<'consumer'>;
  /** Apply transactions a durable consumer ran again after a deadlock or serialization failure (not failures). */
  consumerConflicts: Counter<'consumer' | 'code'>;
  /** Durable consumers whose backlog events_consumer_pending_messages reports. */
  pendingReaders: Map<string, PendingReader>;
  /** Durable consumers whose parked messages (not discarded) events_parked_messages reports. */
  parkedReaders: Map<string, PendingReader>;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Delays that may last minutes (an outage of JetStream, a consumer catching up). */
const LAG_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900];

type Registers = Registry[];

/** A gauge that asks each reader in the map it returns at scrape time, by consumer (-1 when a read fails). */
function readersGauge(name: string, help: string, registers: Registers): Map<string, PendingReader> {
  const readers = new Map<string, PendingReader>();
  new Gauge({
    name,
    help,
    labelNames: ['consumer'],
    registers,
    async collect() {
      this.reset();
      await Promise.all(
        [...readers].map(async ([consumer, read]) => {
          this.set({ consumer }, await read().catch(() => -1));
        }),
      );
    },
  });
  return readers;
}

/** A counter registered in `registers`, by `labelNames`. */
function counter<L extends string>(registers: Registers, name: string, help: string, labelNames: readonly L[]): Counter<L> {
  return new Counter({ name, help, labelNames, registers });
}

/** A histogram registered in `registers`, by `labelNames`, with `buckets` (seconds). */
function histogram<L extends string>(registers: Registers, name: string, help: string, labelNames: readonly L[], buckets: number[]): Histogram<L> {
  return new Histogram({ name, help, labelNames, buckets, registers });
}

/** RED of the NATS handlers and callers. */
function rpcMetrics(r: Registers): Pick<ServiceMetrics, 'rpcServerDuration' | 'rpcClientDuration'> {
  const labels = ['operation', 'outcome'] as const;
  return {
    rpcServerDuration: histogram(r, 'nats_rpc_server_duration_seconds', 'Time to handle one NATS request, by operation and outcome (ok, error code).', labels, LATENCY_BUCKETS),
    rpcClientDuration: histogram(r, 'nats_rpc_client_duration_seconds', 'Round trip of one NATS request as seen by the caller, by operation and outcome.', labels, LATENCY_BUCKETS),
  };
}

/** Publishing the outbox to JetStream. */
function outboxMetrics(r: Registers): Pick<ServiceMetrics, 'outboxPublished' | 'outboxPublishAck' | 'outboxPublishLag'> {
  return {
    outboxPublished: counter(r, 'outbox_published_total', 'Outbox rows published to JetStream, by who published them (inline or relay).', ['kind']),
    outboxPublishAck: histogram(
      r,
      'outbox_publish_ack_seconds',
      "Time from sending a committed transaction's events to JetStream to the stream's ack of the last (inline publish: the reply waits for it).",
      [],
      LATENCY_BUCKETS,
    ),
    outboxPublishLag: histogram(
      r,
      'outbox_publish_lag_seconds',
      'Time from writing an outbox row to its publish to JetStream, by who published it (inline or relay).',
      ['kind'],
      LAG_BUCKETS,
    ),
  };
}

/** Postings and the group commits of libs/posting. */
function ledgerMetrics(r: Registers): Pick<ServiceMetrics, 'journalEntries' | 'groupCommits'> {
  return {
    journalEntries: counter(r, 'ledger_journal_entries_total', 'Journal entries committed (postings), by source type.', ['source_type']),
    groupCommits: counter(
      r,
      'ledger_group_commits_total',
      'Units of work of postings (libs/posting Books: a group of works, or a work alone, in one transaction), by outcome: committed; split (a group of two or more rolled back and split in halves, each committed the same way); failed (a work alone that failed: its own error).',
      ['way'],
    ),
  };
}

/** What the durable consumers apply. */
function consumerMetrics(r: Registers): Pick<ServiceMetrics, 'eventsConsumed' | 'consumerLag' | 'consumerConflicts'> {
  return {
    eventsConsumed: counter(
      r,
      'events_consumed_total',
      'Messages a durable consumer handled, by outcome (applied, duplicate, failed; skipped: acked unapplied, nothing to do; malformed, refused and parked are parked, never applied).',
      ['consumer', 'outcome'],
    ),
    consumerLag: histogram(r, 'events_consumer_lag_seconds', 'Time from an event entering the stream to a durable consumer applying (or skipping) it.', ['consumer'], LAG_BUCKETS),
    consumerConflicts: counter(
      r,
      'events_consumer_conflicts_total',
      'Apply transactions a durable consumer retried after a transient conflict with another replica, by SQLSTATE (40P01 deadlock, 40001 serialization).',
      ['consumer', 'code'],
    ),
  };
}

export function createMetrics(service: string, withDefaults = true): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  if (withDefaults) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const pendingReaders = readersGauge(
    'events_consumer_pending_messages',
    'Events in the stream a durable consumer has not acknowledged yet (undelivered + unacknowledged), read at scrape time; -1 when unknown.',
    registers,
  );
  const parkedReaders = readersGauge(
    'events_parked_messages',
    'Messages a durable consumer parked (malformed, refused or failing) and no operator discarded or retried yet, read at scrape time; -1 when unknown.',
    registers,
  );
  return {
    registry,
    ...rpcMetrics(registers),
    ...outboxMetrics(registers),
    ...ledgerMetrics(registers),
    ...consumerMetrics(registers),
    pendingReaders,
    parkedReaders,
  };
}

export { LAG_BUCKETS, LATENCY_BUCKETS };
