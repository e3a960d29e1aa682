import { BUS_PRINCIPALS, BUS_ROLES, busPermissions, callsOf, eventSubjectsOf } from './bus-permissions';
import { CONSUMERS, OUTBOUND_EVENT_TYPES, outboundSubject, postingSubject } from './events';
import { SERVICE_MANIFEST } from './manifest';
import { RPC_OPERATIONS, operationsOf, rpcSubject } from './subjects';

/** Does a NATS subject pattern (with * and >) cover a literal subject? */
function covers(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}
const may = (list: string[], subject: string) => list.some((p) => covers(p, subject));

describe('busPermissions', () => {
  const prefix = 'acct';

  it('has a role and a user for every process of the manifest, and admin', () => {
    expect(Object.keys(BUS_ROLES).sort()).toEqual(SERVICE_MANIFEST.map((s) => s.name).sort());
    expect(BUS_PRINCIPALS).toEqual([...SERVICE_MANIFEST.map((s) => s.name), 'admin']);
  });

  it('lets each posting service publish its own postings and no other service', () => {
    for (const m of SERVICE_MANIFEST) {
      for (const other of SERVICE_MANIFEST) {
        expect([m.name, other.name, may(busPermissions(prefix, m.name).publish, postingSubject(prefix, other.name))]).toEqual([
          m.name,
          other.name,
          m.name === other.name && m.posts,
        ]);
      }
    }
  });

  it('gives every event subject exactly one publisher', () => {
    const owners = new Map<string, string[]>();
    for (const m of SERVICE_MANIFEST) for (const s of eventSubjectsOf(prefix, m.name)) owners.set(s, [...(owners.get(s) ?? []), m.name]);
    for (const [subject, who] of owners) expect([subject, who.length]).toEqual([subject, 1]);
  });

  it('gives every outbound event type a publisher (else no endpoint could get it): api_key.revoked is the gateway’s', () => {
    for (const type of OUTBOUND_EVENT_TYPES) {
      const who = SERVICE_MANIFEST.filter((m) => may(busPermissions(prefix, m.name).publish, outboundSubject(prefix, type))).map((m) => m.name);
      expect([type, who.length]).toEqual([type, 1]);
    }
    expect(may(busPermissions(prefix, 'gateway').publish, outboundSubject(prefix, 'api_key.revoked'))).toBe(true);
    expect(may(busPermissions(prefix, 'receivables').publish, outboundSubject(prefix, 'api_key.revoked'))).toBe(false);
    expect(may(busPermissions(prefix, 'gateway').publish, outboundSubject(prefix, 'invoice.posted'))).toBe(false);
  });

  it('lets the gateway call every operation, a service only what it declares, and serves each operation to its service only', () => {
    for (const op of Object.keys(RPC_OPERATIONS) as (keyof typeof RPC_OPERATIONS)[]) {
      const subject = rpcSubject(prefix, op);
      expect(may(busPermissions(prefix, 'gateway').publish, subject)).toBe(true);
      for (const m of SERVICE_MANIFEST) {
        const p = busPermissions(prefix, m.name);
        expect([op, m.name, may(p.publish, subject)]).toEqual([op, m.name, callsOf(m.name).includes(op)]);
        expect([op, m.name, may(p.subscribe, subject)]).toEqual([op, m.name, operationsOf(m.name).includes(op)]);
      }
    }
    // A declared call is another service's operation.
    for (const m of SERVICE_MANIFEST) for (const op of callsOf(m.name)) expect(RPC_OPERATIONS[op]).not.toBe(m.name);
  });

  it('reads replies on its own inbox only, and durable consumers on its own only', () => {
    for (const p of BUS_PRINCIPALS) {
      const subs = busPermissions(prefix, p).subscribe;
      expect(may(subs, `_INBOX_${p}.abc.1`)).toBe(true);
      expect(may(subs, '_INBOX.abc.1')).toBe(false);
      for (const other of BUS_PRINCIPALS) if (other !== p) expect(may(subs, `_INBOX_${other}.abc.1`)).toBe(false);
    }
    const next = (d: string) => `$JS.API.CONSUMER.MSG.NEXT.acct_events.${d}`;
    expect(may(busPermissions(prefix, 'reporting').publish, next(CONSUMERS.reportingPostings))).toBe(true);
    expect(may(busPermissions(prefix, 'reporting').publish, next(CONSUMERS.webhookOutbound))).toBe(false);
    expect(may(busPermissions(prefix, 'webhook-dispatcher').publish, next(CONSUMERS.reportingPostings))).toBe(false);
    expect(may(busPermissions(prefix, 'payables').publish, '$JS.API.STREAM.DELETE.acct_events')).toBe(false);
  });
});
