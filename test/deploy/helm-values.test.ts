import fs from 'node:fs';
import path from 'node:path';
import { SERVICE_MANIFEST } from '@acct/contracts';
import { ALL, CHART, DEV, type Doc, EXISTING, find, helmRun, render } from './helm-support';
import { ROOT } from './tools';

/**
 * What the chart asks of the operator (issue 42 item 5): no key or password is ever generated
 * outside development: true, and the numbers deploy/README.md states are the ones it renders.
 */
const NATS_USERS = [...SERVICE_MANIFEST.map((s) => s.name), 'admin'];
const KEYS = ['webhooks.secretKey', 'paymentProcessor.secretKey'];
/** The value paths a failed render names, from its "missing values" list. */
const missingIn = (stderr: string) => [...stderr.matchAll(/^ {2}- ([\w.-]+)/gm)].map((m) => m[1]!);

describe('required values', () => {
  it('helm template of the defaults fails, naming the image, the database URL, both keys and every NATS password', () => {
    const r = helmRun(['template', 'rel', CHART]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('missing values');
    expect(missingIn(r.stderr)).toEqual(['image.repository', 'database.url', ...KEYS, ...NATS_USERS.map((u) => `nats.auth.passwords.${u}`)]);
  });

  it.each(KEYS.map((k) => [k]))('names %s alone when only it is missing', (key) => {
    const r = helmRun(['template', 'rel', CHART, '-f', ALL, '--set', `${key}=`]);
    expect([r.status, missingIn(r.stderr)]).toEqual([1, [key]]);
  });

  it('names a NATS password left out, and needs none with nats.auth.enabled=false', () => {
    const given = ['--set', 'image.repository=registry.example.com/acct', '--set', 'existingSecret=creds'];
    const but = (user: string) => NATS_USERS.filter((u) => u !== user).flatMap((u) => ['--set', `nats.auth.passwords.${u}=password-of-${u}`]);
    const r = helmRun(['template', 'rel', CHART, ...given, ...but('payables')]);
    expect([r.status, missingIn(r.stderr)]).toEqual([1, ['nats.auth.passwords.payables']]);
    expect(helmRun(['template', 'rel', CHART, ...given, ...but('')]).status).toBe(0);
    expect(helmRun(['template', 'rel', CHART, ...given, '--set', 'nats.auth.enabled=false']).status).toBe(0);
  });

  it('existingSecret stands for the database URL and the keys, not for the image or the NATS passwords', () => {
    expect(helmRun(['template', 'rel', CHART, '-f', EXISTING]).status).toBe(0);
    const r = helmRun(['template', 'rel', CHART, '--set', 'existingSecret=creds']);
    expect(missingIn(r.stderr)).toEqual(['image.repository', ...NATS_USERS.map((u) => `nats.auth.passwords.${u}`)]);
  });

  it('renders the same Secrets on every run (no lookup, no random: Argo CD and Flux sync the same keys)', () => {
    const secrets = (docs: Doc[]) => docs.filter((d) => d.kind === 'Secret');
    const first = secrets(render('-f', ALL));
    // The Secret, its copy for the migrations hook, the NATS server's auth.conf and one per NATS user.
    expect(first.length).toBe(3 + NATS_USERS.length);
    expect(secrets(render('-f', ALL))).toEqual(first);
    const data = find(first, 'Secret', 'rel-accounting-api-secret')!.stringData;
    expect([data.WEBHOOK_SECRET_KEY, data.PROCESSOR_SECRET_KEY]).toEqual(['example-webhook-key-of-at-least-32-chars', 'example-processor-key-of-at-least-32-chars']);
    expect(find(first, 'Secret', 'rel-accounting-api-nats-admin')!.stringData.NATS_PASSWORD).toBe('ci-nats-admin-pw');
  });

  it('development: true renders the placeholders with generated keys and passwords, and says so', () => {
    const docs = render(...DEV);
    const data = find(docs, 'Secret', 'rel-accounting-api-secret')!.stringData;
    expect(data.WEBHOOK_SECRET_KEY).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(find(docs, 'Secret', 'rel-accounting-api-nats-admin')!.stringData.NATS_PASSWORD).toMatch(/^[A-Za-z0-9]{32}$/);
    const install = helmRun(['install', 'rel', CHART, ...DEV, '--dry-run=client', '--namespace', 'acct']);
    expect([install.status, install.out]).toEqual([0, expect.stringContaining('DEVELOPMENT: a local try')]);
  });

  it('refuses an encryption key shorter than the services accept (32 characters)', () => {
    const r = helmRun(['template', 'rel', CHART, '-f', ALL, '--set', 'webhooks.secretKey=short-key']);
    expect([r.status, r.stderr]).toEqual([1, expect.stringContaining('secretKey')]);
  });
});

describe('the numbers deploy/README.md states are the ones the chart renders', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'deploy/README.md'), 'utf8');
  /** The default column of the values table's row that starts with `first`. */
  const row = (first: string) => {
    const line = readme.split('\n').find((l) => l.startsWith(`| ${first} |`));
    if (!line) throw new Error(`deploy/README.md has no row ${first}`);
    return line.split('|')[2]!.trim();
  };
  const docs = render('-f', path.join(CHART, 'ci', 'minio-values.yaml'));
  const hpas = docs.filter((d) => d.kind === 'HorizontalPodAutoscaler');
  const named = (d: Doc) => d.metadata.name.replace('rel-accounting-api-', '');

  it('autoscaling: every service but the gateway from min to max, the gateway its own, at the CPU target', () => {
    const m = /^on, (\d+)…(\d+) \(gateway (\d+)…(\d+)\), (\d+) % CPU$/.exec(row('`…autoscaling`'))!;
    expect(m).not.toBeNull();
    const [, min, max, gwMin, gwMax, cpu] = m.map(Number);
    expect(hpas.map(named).sort()).toEqual(SERVICE_MANIFEST.map((s) => s.name).sort());
    for (const h of hpas) {
      const want = named(h) === 'gateway' ? [gwMin, gwMax] : [min, max];
      expect([named(h), h.spec.minReplicas, h.spec.maxReplicas]).toEqual([named(h), ...want]);
      expect(h.spec.metrics[0].resource.target.averageUtilization).toBe(cpu);
    }
  });

  it('PodDisruptionBudgets: minAvailable as stated, for every service', () => {
    const m = /^`(\d+)`$/.exec(row('`…pdb.minAvailable`'))!;
    const pdbs = docs.filter((d) => d.kind === 'PodDisruptionBudget');
    expect(pdbs.length).toBe(SERVICE_MANIFEST.length);
    for (const p of pdbs) expect([named(p), p.spec.minAvailable]).toEqual([named(p), Number(m[1])]);
  });

  it('rate limits, pool, RPC timeout, drain and grace period', () => {
    const env = Object.fromEntries(
      (find(docs, 'Deployment', 'rel-accounting-api-gateway')!.spec.template.spec.containers[0].env as { name: string; value: string }[]).map((e) => [e.name, e.value]),
    );
    expect(row('`services.gateway.env.RATE_LIMIT_RPS` / `RATE_LIMIT_BURST`')).toBe(`\`${env.RATE_LIMIT_RPS}\` / \`${env.RATE_LIMIT_BURST}\``);
    const config = find(docs, 'ConfigMap', 'rel-accounting-api-config')!.data;
    expect(row('`database.poolMax`')).toBe(`\`${config.DB_POOL_MAX}\``);
    expect(row('`config.RPC_TIMEOUT_MS`')).toBe(`\`${config.RPC_TIMEOUT_MS}\``);
    expect(row('`nats.prefix`')).toBe(`\`${config.NATS_PREFIX}\``);
    const pod = find(docs, 'Deployment', 'rel-accounting-api-receivables')!.spec.template.spec;
    const drain = [config.SHUTDOWN_TIMEOUT_MS, pod.terminationGracePeriodSeconds, pod.containers[0].lifecycle.preStop.exec.command[1]].join(', ');
    expect(row('`config.SHUTDOWN_TIMEOUT_MS`, `terminationGracePeriodSeconds`, `preStopSleepSeconds`')).toBe(drain);
  });

  it('the rate limit is described as shared by the gateway replicas in values.yaml and deploy/README.md alike', () => {
    expect(readme).toContain('**Rate limits are shared by the gateway pods**');
    const values = fs.readFileSync(path.join(CHART, 'values.yaml'), 'utf8');
    expect(values).toContain('the per-key rate limit is shared by the gateway replicas');
    expect(values).not.toMatch(/rate limit is per replica/);
  });

  it('RUNBOOK.md names the request id header the gateway sets', () => {
    const gateway = fs.readFileSync(path.join(ROOT, 'services/gateway/src/middlewares/context.ts'), 'utf8');
    const header = /ctx\.set\('([\w-]+)', ctx\.state\.requestId\)/.exec(gateway)![1]!;
    const runbook = fs.readFileSync(path.join(ROOT, 'deploy/RUNBOOK.md'), 'utf8');
    const named = [...runbook.matchAll(/`((?:X-)?Request-Id)`/gi)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    expect(new Set(named)).toEqual(new Set([header]));
  });
});
