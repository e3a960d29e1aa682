/**
 * The bus as a trust boundary: what each process may publish and subscribe on NATS, derived from
 * one declaration (BUS_ROLES, beside SERVICE_MANIFEST and RPC_CATALOGUE). The stack tool, compose's
 * nats config and the Helm chart's authorization config are all rendered from busPermissions(), so
 * a service's NATS user can publish its own events, answer its own operations, call the operations
 * it declares and read its own durable consumers, and nothing else: payables cannot publish
 * receivables' postings, and only the gateway (and the operator's `admin`) sends requests to any service.
 */
import { BOOKS_LOCK_COPY_OPERATIONS } from './api/books-lock';
import { CONSUMERS, type EmittedEventType, eventsStreamName, postingSubject, isReferenceEventType, outboundSubject, referenceSubject } from './events';
import { SERVICE_MANIFEST, type ServiceName, manifestOf } from './manifest';
import { type RpcOperation, RPC_OPERATIONS, adminSubject, rpcSubject } from './subjects';

/** Who connects to NATS: each process of SERVICE_MANIFEST (one user for all its replicas) and the operator's tools. */
export type BusPrincipal = ServiceName | 'admin';

/** What a process does on the bus beyond answering its own operations (RPC_CATALOGUE). */
export interface BusRole {
  /** Operations of other services it calls; 'all' for the gateway, which routes every public request. */
  calls: readonly RpcOperation[] | 'all';
  /** Events it emits besides its postings (a service with `posts: true` publishes on postingSubject(prefix, itself)). */
  emits: readonly EmittedEventType[];
  /** Durable consumers (CONSUMERS) it creates and reads on the events stream. */
  consumes: readonly string[];
  /** Operator commands it answers on adminSubject(prefix, itself, command). */
  admin: readonly string[];
}

/**
 * The one declaration. Books.emit refuses an event type its service does not list here, and a
 * service that calls an operation missing from its `calls` is refused by NATS (test/integration/nats-auth.int.test.ts).
 */
export const BUS_ROLES: { readonly [S in ServiceName]: BusRole } = {
  // BOOKS_LOCK_COPY_OPERATIONS: the owner of the lock date waits for every other posting service's
  // copy (fed by books_lock.updated) to hold each new version before PUT answers.
  receivables: {
    calls: ['settings.invoice_defaults.get', ...Object.values(BOOKS_LOCK_COPY_OPERATIONS)],
    emits: ['customer.created', 'customer.updated', 'books_lock.updated', 'invoice.posted', 'payment.posted', 'invoice.paid', 'invoice.partially_paid', 'invoice.voided'],
    consumes: [],
    admin: [],
  },
  // payables-books-lock: its copy of the lock date, fed by books_lock.updated (libs/posting books-lock-feed.ts).
  payables: {
    calls: [],
    emits: ['vendor.created', 'vendor.updated'],
    consumes: [CONSUMERS.payablesBooksLock],
    admin: [`parked.${CONSUMERS.payablesBooksLock}`],
  },
  documents: { calls: ['customers.get', 'invoices.get', 'estimates.get', 'vendors.get', 'bills.get'], emits: [], consumes: [], admin: [] },
  // parked.<consumer>: the operator lists, retries and discards what the consumer parked (libs/kit consumer).
  // ledger_chain.*: GET /ledger/verification asks each posting service to verify its own journal's chain.
  reporting: {
    calls: ['ledger_chain.receivables', 'ledger_chain.payables'],
    emits: [],
    consumes: [CONSUMERS.reportingPostings],
    admin: ['rebuild', `parked.${CONSUMERS.reportingPostings}`],
  },
  'webhook-dispatcher': { calls: [], emits: [], consumes: [CONSUMERS.webhookOutbound], admin: [`parked.${CONSUMERS.webhookOutbound}`] },
  // api_key.revoked: from the gateway's own outbox (its relay publishes what the dashboard and the admin CLI write).
  gateway: { calls: 'all', emits: ['api_key.revoked'], consumes: [], admin: [] },
};

/** Every principal: the manifest's processes, then `admin`. */
export const BUS_PRINCIPALS: readonly BusPrincipal[] = Object.freeze([...SERVICE_MANIFEST.map((s) => s.name), 'admin' as const]);

/** The inbox prefix of a principal's connections: replies reach only it (subscribe `_INBOX_<principal>.>`). */
export function inboxPrefixOf(principal: string): string {
  return `_INBOX_${principal}`;
}

export interface BusPermissions {
  publish: string[];
  subscribe: string[];
  /** May answer the requests it receives (its operations, admin commands). */
  allowResponses: boolean;
}

/** The operations `service` calls (every one for 'all'). */
export function callsOf(service: ServiceName): RpcOperation[] {
  const calls = BUS_ROLES[service].calls;
  return calls === 'all' ? (Object.keys(RPC_OPERATIONS) as RpcOperation[]) : [...calls];
}

/** The subjects a process publishes its events on: its postings (posts: true) and what it emits. */
export function eventSubjectsOf(prefix: string, service: ServiceName): string[] {
  const posting = manifestOf(service).posts ? [postingSubject(prefix, service)] : [];
  return [...posting, ...BUS_ROLES[service].emits.map((t) => (isReferenceEventType(t) ? referenceSubject(prefix, t) : outboundSubject(prefix, t)))];
}

/** JetStream API subjects a durable consumer's owner needs: create, info, next, delete (rebuild), acks. */
function consumerApi(stream: string, durable: string): string[] {
  return [
    `$JS.API.CONSUMER.CREATE.${stream}.${durable}`,
    `$JS.API.CONSUMER.CREATE.${stream}.${durable}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.${durable}`,
    `$JS.API.CONSUMER.INFO.${stream}.${durable}`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`,
    `$JS.API.CONSUMER.DELETE.${stream}.${durable}`,
    `$JS.ACK.${stream}.${durable}.>`,
  ];
}

/** The permissions of one principal on a stack with NATS_PREFIX `prefix`. */
export function busPermissions(prefix: string, principal: BusPrincipal): BusPermissions {
  const inbox = `${inboxPrefixOf(principal)}.>`;
  const stream = eventsStreamName(prefix);
  if (principal === 'admin') {
    // The operator's tools: admin commands, any operation, the JetStream API (inspect, rebuild, drop a stream).
    return { publish: [`${prefix}.admin.>`, `${prefix}.rpc.>`, '$JS.API.>'], subscribe: [inbox], allowResponses: true };
  }
  const role = BUS_ROLES[principal];
  const m = manifestOf(principal);
  const calls = callsOf(principal);
  // The gateway calls every operation: one wildcard per service instead of one subject per operation.
  const callSubjects = role.calls === 'all' ? [...new Set(calls.map((op) => RPC_OPERATIONS[op]))].map((s) => `${prefix}.rpc.${s}.>`) : calls.map((op) => rpcSubject(prefix, op));
  const rpc = m.queue !== null || calls.length > 0;
  const events = eventSubjectsOf(prefix, principal);
  const jetstream = events.length > 0 || role.consumes.length > 0;
  const publish = [
    ...callSubjects,
    ...events,
    ...(jetstream ? ['$JS.API.INFO', `$JS.API.STREAM.INFO.${stream}`, `$JS.API.STREAM.CREATE.${stream}`] : []),
    ...role.consumes.flatMap((d) => consumerApi(stream, d)),
  ];
  const subscribe = [inbox, ...(m.queue !== null ? [`${prefix}.rpc.${principal}.>`] : []), ...role.admin.map((c) => adminSubject(prefix, principal, c))];
  return { publish, subscribe, allowResponses: m.queue !== null || rpc || role.admin.length > 0 };
}
