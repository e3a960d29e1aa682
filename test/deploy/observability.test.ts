import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { createMetrics } from '@acct/kit';
import { createGatewayMetrics } from '../../services/gateway/src/metrics';
import { AWAITED_METRICS, documentedMetrics } from './metrics-doc';

/**
 * The documented metrics exist in the code, and the alert rules and the dashboard use only metrics
 * that exist (a renamed metric would silently turn an alert off). promtool (npm run test:deploy)
 * checks the rules' syntax; this checks their names.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const documented = documentedMetrics();
// The alerts and the dashboard may name a metric documented but awaited (metrics-doc.ts).
const names = new Set(documentedMetrics({ withAwaited: true }).map((m) => m.name));
const alerts = parse(fs.readFileSync(path.join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8')) as {
  groups: {
    name: string;
    rules: { alert: string; expr: string; for?: string; labels: { severity: string }; annotations: { summary: string; description: string; runbook_url?: string } }[];
  }[];
};
const rules = alerts.groups.flatMap((g) => g.rules);
const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, 'deploy/grafana/dashboards/accounting-api.json'), 'utf8')) as {
  panels: { type: string; title: string; targets?: { expr: string }[] }[];
};

const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'offset', 'bool', 'le', 'inf']);
/** Metric names a PromQL expression selects: identifiers not used as a function, label, keyword or in a string. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"[^"]*"/g, '""')
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\[[^\]]*\]/g, '[]')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, '');
  return [...bare.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)].map((m) => m[1]!).filter((n) => !PROMQL_WORDS.has(n.toLowerCase()) && !/^\d/.test(n));
}
/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
function githubAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}
/** The sections of a Markdown file by the anchor of their heading (any level), with their text. */
function runbookSections(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = text.split(/^(#{1,6} .*)$/m);
  for (let i = 1; i < parts.length; i += 2) out.set(githubAnchor(parts[i]!.replace(/^#+ /, '')), parts[i + 1] ?? '');
  return out;
}
/** A histogram is selected through _bucket, _sum or _count. */
const base = (n: string) => (names.has(n) ? n : n.replace(/_(bucket|sum|count)$/, ''));
const known = (n: string) => n === 'up' || names.has(base(n));

describe('documented metrics', () => {
  it('lists the RED, outbox, consumer, gateway and process metrics', () => {
    for (const n of [
      'http_request_duration_seconds',
      'nats_rpc_server_duration_seconds',
      'ledger_journal_entries_total',
      'outbox_unpublished_rows',
      'outbox_publish_lag_seconds',
      'events_consumer_pending_messages',
      'events_consumer_lag_seconds',
      'http_rate_limited_total',
      'http_idempotent_replays_total',
      'process_cpu_seconds_total',
    ]) {
      expect([n, names.has(n)]).toEqual([n, true]);
    }
  });

  it('every documented metric is registered by the code, with its type', async () => {
    const registered = new Map<string, string>();
    for (const m of [createMetrics('receivables'), createGatewayMetrics()]) {
      for (const j of await m.registry.getMetricsAsJSON()) registered.set(j.name, String(j.type));
    }
    // The outbox backlog gauges are registered by Outbox.registerBacklogMetrics() in posting services.
    const outboxGauges = ['outbox_unpublished_rows', 'outbox_oldest_unpublished_seconds'];
    const src = fs.readFileSync(path.join(ROOT, 'libs/kit/src/outbox.ts'), 'utf8');
    for (const g of outboxGauges) expect(src).toContain(`name: '${g}'`);
    // The webhook dispatcher registers its own (services/webhook-dispatcher/src/metrics.ts).
    const webhookSrc = fs.readFileSync(path.join(ROOT, 'services/webhook-dispatcher/src/metrics.ts'), 'utf8');
    const webhook = documented.filter((d) => d.exposedBy === 'webhook-dispatcher');
    expect(webhook.length).toBeGreaterThanOrEqual(5);
    for (const m of webhook)
      expect(webhookSrc).toMatch(new RegExp(`new ${m.type === 'counter' ? 'Counter' : m.type === 'gauge' ? 'Gauge' : 'Histogram'}\\(\\{\\s*name: '${m.name}'`));
    // So does the documents service (services/documents/src/metrics.ts).
    const { documentsMetrics } = await import('../../services/documents/src/metrics');
    const docs = createMetrics('documents', false);
    documentsMetrics(docs);
    const docsRegistered = new Map((await docs.registry.getMetricsAsJSON()).map((j) => [j.name, String(j.type)]));
    const ownedByDocuments = documented.filter((d) => d.exposedBy === 'documents');
    expect(ownedByDocuments.map((m) => m.name)).toContain('s3_errors_total');
    for (const m of ownedByDocuments) expect([m.name, docsRegistered.get(m.name)]).toEqual([m.name, m.type]);
    // The scheduled ledger verification of the posting services registers its own (libs/posting ChainVerifier).
    const { ChainVerifier } = await import('@acct/posting');
    const posting = createMetrics('payables', false);
    new ChainVerifier({ orm: undefined as never, service: 'payables', log: undefined as never, metrics: posting }, { intervalMs: 1000, firstDelayMs: 0 });
    const postingRegistered = new Map((await posting.registry.getMetricsAsJSON()).map((j) => [j.name, String(j.type)]));
    const chainMetrics = documented.filter((d) => d.name.startsWith('ledger_chain_'));
    expect(chainMetrics.map((m) => m.exposedBy)).toEqual(['posting services', 'posting services', 'posting services', 'posting services']);
    for (const m of chainMetrics) expect([m.name, postingRegistered.get(m.name)]).toEqual([m.name, m.type]);
    for (const m of documented.filter(
      (d) => !outboxGauges.includes(d.name) && !d.name.startsWith('ledger_chain_') && d.exposedBy !== 'webhook-dispatcher' && d.exposedBy !== 'documents',
    ))
      expect([m.name, registered.get(m.name)]).toEqual([m.name, m.type]);
  });
});

describe('alert rules', () => {
  it('parse, and each has a duration, a severity, a summary and a description', () => {
    expect(rules.length).toBeGreaterThanOrEqual(8);
    for (const r of rules) {
      expect([r.alert, typeof r.expr, r.for]).toEqual([r.alert, 'string', expect.stringMatching(/^\d+[smh]$/)]);
      expect(['critical', 'warning']).toContain(r.labels.severity);
      expect(r.annotations.summary.length).toBeGreaterThan(10);
      expect(r.annotations.description.length).toBeGreaterThan(10);
    }
  });

  it('cover errors, p99, outbox backlog, consumer lag and a service down', () => {
    const used = new Set(rules.flatMap((r) => metricNames(r.expr).map(base)));
    for (const n of ['http_request_duration_seconds', 'nats_rpc_server_duration_seconds', 'outbox_unpublished_rows', 'events_consumer_pending_messages', 'up'])
      expect([n, used.has(n)]).toEqual([n, true]);
    expect(rules.some((r) => r.expr.includes('histogram_quantile(0.99'))).toBe(true);
  });

  it('cover a broken ledger chain, a verification that no longer finishes, and JetStream unreachable', () => {
    const used = new Set(rules.flatMap((r) => metricNames(r.expr).map(base)));
    for (const n of ['ledger_chain_broken_chains', 'ledger_chain_last_verified_timestamp_seconds']) expect([n, used.has(n)]).toEqual([n, true]);
    expect(rules.some((r) => r.expr.includes('events_consumer_pending_messages) < 0'))).toBe(true);
  });

  it('cover webhook failures and backlog, the rate-limit store failing open, S3 errors, malformed, refused and parked events', () => {
    const used = new Set(rules.flatMap((r) => metricNames(r.expr).map(base)));
    for (const n of [
      'webhook_attempts_total',
      'webhook_deliveries_total',
      'webhook_oldest_due_seconds',
      'rate_limit_store_errors_total',
      's3_errors_total',
      'events_parked_messages',
    ])
      expect([n, used.has(n)]).toEqual([n, true]);
    for (const outcome of ['malformed', 'refused', 'parked'])
      expect([outcome, rules.some((r) => r.expr.includes(`events_consumed_total{outcome="${outcome}"}`))]).toEqual([outcome, true]);
  });

  it('reference only metrics that exist', () => {
    const unknown = rules.flatMap((r) =>
      metricNames(r.expr)
        .filter((n) => !known(n))
        .map((n) => `${r.alert}: ${n}`),
    );
    expect(unknown).toEqual([]);
  });

  it('the name extraction does find a misspelt metric', () => {
    expect(metricNames('sum by (service) (rate(outbox_publishd_total{kind="x"}[5m])) > 0').filter((n) => !known(n))).toEqual(['outbox_publishd_total']);
  });

  it('every service of the manifest is covered by the down alerts', async () => {
    const { SERVICE_MANIFEST } = await import('@acct/contracts');
    const down = rules.filter((r) => r.alert.startsWith('AccountingService')).map((r) => r.expr);
    for (const s of SERVICE_MANIFEST) {
      expect([s.name, down.every((e) => e.includes(s.name))]).toEqual([s.name, true]);
    }
  });

  it('every alert is listed in deploy/README.md', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'deploy/README.md'), 'utf8');
    for (const r of rules) expect([r.alert, readme.includes(`| \`${r.alert}\` | ${r.labels.severity} |`)]).toEqual([r.alert, true]);
  });

  it('every alert has a runbook_url naming its own section of deploy/RUNBOOK.md, which says what it means, how to check and fix', () => {
    const runbook = fs.readFileSync(path.join(ROOT, 'deploy/RUNBOOK.md'), 'utf8');
    const sections = runbookSections(runbook);
    expect(sections.size).toBeGreaterThan(rules.length);
    for (const r of rules) {
      const url = r.annotations.runbook_url ?? '';
      expect([r.alert, url]).toEqual([r.alert, `deploy/RUNBOOK.md#${githubAnchor(r.alert)}`]);
      const body = sections.get(url.slice(url.indexOf('#') + 1));
      expect([r.alert, body !== undefined]).toEqual([r.alert, true]);
      expect([r.alert, /\*\*Means\*\*/.test(body!), /\*\*Check\*\*/.test(body!), /\*\*[Ff]ix\*\*/.test(body!)]).toEqual([r.alert, true, true, true]);
      expect([r.alert, body!.trimStart().split('\n')[0]]).toEqual([r.alert, expect.stringMatching(new RegExp(`^\\*\\*Severity\\*\\*: ${r.labels.severity}: `))]);
    }
    // The links between sections lead somewhere too.
    const links = [...runbook.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(3);
    expect(links.filter((a) => !sections.has(a))).toEqual([]);
  });

  it('the on-call alerts have promtool unit tests (deploy/prometheus/alerts.test.yml, run by test/deploy/run.sh) that see each fire and stay quiet', () => {
    const file = parse(fs.readFileSync(path.join(ROOT, 'deploy/prometheus/alerts.test.yml'), 'utf8')) as {
      rule_files: string[];
      tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    expect(file.rule_files).toEqual(['alerts.yml']);
    const cases = file.tests.flatMap((t) => t.alert_rule_test);
    for (const a of [
      'AccountingWebhookAttemptsFailing',
      'AccountingWebhookDeliveriesFailing',
      'AccountingWebhookBacklog',
      'AccountingRateLimitStoreFailingOpen',
      'AccountingDocumentsS3Errors',
      'AccountingEventMalformed',
      'AccountingEventRefused',
      'AccountingParkedEventsWaiting',
      'AccountingLedgerChainBroken',
      'AccountingLedgerVerificationStale',
      'AccountingJetStreamUnreachable',
    ]) {
      expect([a, rules.some((r) => r.alert === a)]).toEqual([a, true]);
      expect([a, cases.some((c) => c.alertname === a && c.exp_alerts.length > 0)]).toEqual([a, true]);
    }
    for (const c of cases) expect([c.alertname, rules.some((r) => r.alert === c.alertname)]).toEqual([c.alertname, true]);
  });

  it('the runbook check does find a missing section', () => {
    expect(runbookSections('# Runbook\n\n## AccountingServiceDown\n\n**Means**: x').has('accountingserviceabsent')).toBe(false);
    expect(githubAnchor('Parked and malformed events')).toBe('parked-and-malformed-events');
  });
});

describe('metrics awaited from another branch (metrics-doc.ts AWAITED_METRICS)', () => {
  it('are documented, and not registered by libs/kit yet (once they are, take them off the list)', () => {
    const kit = fs
      .readdirSync(path.join(ROOT, 'libs/kit/src'))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => fs.readFileSync(path.join(ROOT, 'libs/kit/src', f), 'utf8'))
      .join('\n');
    for (const n of AWAITED_METRICS) {
      expect([n, names.has(n)]).toEqual([n, true]);
      expect([n, kit.includes(`'${n}'`)]).toEqual([n, false]);
    }
  });
});

describe('Grafana dashboard', () => {
  const targets = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));

  it('has panels with queries for every documented metric family it shows', () => {
    expect(targets.length).toBeGreaterThan(20);
  });

  it('has a Webhooks row (deliveries by outcome, backlog, latency) and a Documents row (uploads, renders, S3 errors)', () => {
    /** The metrics each row's panels query: a row holds the panels after it, up to the next row. */
    const rows = new Map<string, Set<string>>();
    let current = '';
    for (const p of dashboard.panels) {
      if (p.type === 'row') rows.set((current = p.title), new Set());
      else for (const t of p.targets ?? []) for (const n of metricNames(t.expr.replace(/\$__rate_interval/g, '5m'))) rows.get(current)?.add(base(n));
    }
    const want: Record<string, string[]> = {
      Webhooks: ['webhook_deliveries_total', 'webhook_attempts_total', 'webhook_attempt_duration_seconds', 'webhook_deliveries_due', 'webhook_oldest_due_seconds'],
      Documents: ['nats_rpc_server_duration_seconds', 's3_errors_total'],
      'Event consumers': ['events_parked_messages', 'events_consumed_total'],
    };
    for (const [row, metrics] of Object.entries(want)) for (const m of metrics) expect([row, m, rows.get(row)?.has(m)]).toEqual([row, m, true]);
    const documents = dashboard.panels.filter((p) => (p.targets ?? []).some((t) => t.expr.includes('service="documents"'))).flatMap((p) => p.targets!.map((t) => t.expr));
    expect(documents.some((e) => e.includes('upload_'))).toBe(true);
    expect(documents.some((e) => e.includes('document_renders'))).toBe(true);
  });

  it('lays out its panels without overlap', () => {
    const boxes = (dashboard.panels as unknown as { gridPos: { x: number; y: number; w: number; h: number }; id: number }[]).map((p) => ({ ...p.gridPos, id: p.id }));
    const overlaps = boxes.flatMap((a, i) =>
      boxes
        .slice(i + 1)
        .filter((b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h)
        .map((b) => `${a.id}/${b.id}`),
    );
    expect(overlaps).toEqual([]);
    expect(new Set(boxes.map((b) => b.id)).size).toBe(boxes.length);
  });

  it('queries only metrics that exist', () => {
    const unknown = targets.flatMap((t) =>
      metricNames(t.expr.replace(/\$__rate_interval/g, '5m'))
        .filter((n) => !known(n))
        .map((n) => `${t.panel}: ${n}`),
    );
    expect(unknown).toEqual([]);
  });
});
