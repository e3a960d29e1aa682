import { SERVICE_MANIFEST } from '@acct/contracts';
import { documentedMetrics } from '../deploy/metrics-doc';
import { type E2E, bootstrapOrg, client, startE2E } from './harness';
import { createCustomer, createOpenInvoice } from './receivables.helpers';

/**
 * Scrapes /metrics of every process of a running stack: every metric deploy/README.md documents
 * is exposed by the services it names, and the work done through the API shows up in the RED,
 * posting and outbox series with the documented labels. With replicas (E2E_CLUSTER=1) each request
 * reached one of a service's processes: its counters are summed over them, as Prometheus' sum() does.
 */
describe('e2e: /metrics of every service', () => {
  let e2e: E2E;
  /** Each process's /metrics, by service. */
  const scraped = new Map<string, string[]>();
  const textOf = (name: string) => scraped.get(name)!.join('\n');
  let customerId = '';

  beforeAll(async () => {
    e2e = await startE2E();
    const keys = await bootstrapOrg(e2e.databaseUrl, 'Metrics org');
    const api = client(e2e.base, keys.test_key);
    customerId = await createCustomer(api, 'Metrics customer');
    await createOpenInvoice(api, customerId, 12_345);
    const get = await api('GET', `/api/v1/customers/${customerId}`);
    expect(get.status).toBe(200);
    // The same Idempotency-Key twice: the second is a replay.
    const body = { external_customer_id: `metrics-${customerId}`, name: 'Replayed' };
    for (let i = 0; i < 2; i++) expect((await api('POST', '/api/v1/customers', body, { 'idempotency-key': `k-${customerId}` })).status).toBeLessThan(300);
    for (const svc of e2e.stack.services.values()) {
      const res = await fetch(`http://127.0.0.1:${svc.opsPort}/metrics`);
      expect(res.status).toBe(200);
      scraped.set(svc.def.name, [...(scraped.get(svc.def.name) ?? []), await res.text()]);
    }
  });
  afterAll(async () => e2e?.stop());

  const value = (text: string, name: string, labels: Record<string, string>): number => {
    const lines = text.split('\n').filter((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
    return lines.reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  };

  it.each(SERVICE_MANIFEST.map((s) => [s.name, s] as const))('%s exposes every documented metric that applies to it', (name, s) => {
    const applies = documentedMetrics().filter(
      (m) => m.exposedBy === 'all' || (m.exposedBy === 'gateway' && s.public) || (m.exposedBy === 'posting services' && s.posts) || m.exposedBy === s.name,
    );
    expect(applies.length).toBeGreaterThan(10);
    for (const text of scraped.get(name)!) {
      const missing = applies.filter((m) => !text.includes(`# TYPE ${m.name} ${m.type}`)).map((m) => m.name);
      expect(missing).toEqual([]);
      expect(text).toContain(`service="${name}"`);
    }
  });

  it('the gateway labels HTTP requests by route template, not by path', () => {
    const text = textOf('gateway');
    const routes = [...text.matchAll(/^http_request_duration_seconds_count\{[^}]*route="([^"]+)"/gm)].map((m) => m[1]!);
    expect(routes.length).toBeGreaterThan(2);
    expect(routes.some((r) => r.includes(customerId))).toBe(false);
    expect(routes.some((r) => r.startsWith('/api/v1/customers/') && r !== '/api/v1/customers/')).toBe(true);
    expect(text).toMatch(/^http_idempotent_replays_total\{[^}]*\} [1-9]/m);
    expect(value(text, 'nats_rpc_client_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(0);
  });

  it('receivables counts its handlers by operation and outcome, its postings and its outbox publishes', () => {
    const text = textOf('receivables');
    expect(value(text, 'nats_rpc_server_duration_seconds_count', { operation: 'customers.create', outcome: 'ok' })).toBeGreaterThan(0);
    expect(value(text, 'ledger_journal_entries_total', { source_type: 'invoice' })).toBeGreaterThanOrEqual(1);
    expect(value(text, 'outbox_published_total', { kind: 'inline' })).toBeGreaterThanOrEqual(1);
    expect(value(text, 'outbox_publish_lag_seconds_count', { kind: 'inline' })).toBeGreaterThanOrEqual(1);
    expect(value(text, 'outbox_publish_ack_seconds_count', {})).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^outbox_unpublished_rows\{[^}]*\} \d+/m);
    expect(text).toMatch(/^process_cpu_seconds_total\{[^}]*\} /m);
  });
});
