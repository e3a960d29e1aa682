import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { BUS_PRINCIPALS, SERVICE_MANIFEST } from '@acct/contracts';
import { passwordEnvOf } from '@acct/kit';

/**
 * docker-compose.yml beyond the manifest (manifest.test.ts): every long-running container has a
 * healthcheck, every dependency waits on a condition, the files it mounts exist, and Prometheus
 * and Grafana get the rules and dashboard of deploy/. `docker-compose config -q` (npm run
 * test:deploy) checks the file against Compose's own schema.
 */
const ROOT = path.resolve(__dirname, '..', '..');
interface Svc {
  image?: string;
  command?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }> | string[];
  volumes?: string[];
  restart?: string;
  environment?: Record<string, unknown>;
}
const compose = parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Svc>; volumes: Record<string, unknown> };
const services = compose.services;
const oneShot = (s: Svc) => s.restart === 'no';

describe('docker-compose.yml', () => {
  it('runs the infrastructure, the migrations, Prometheus, Grafana and every service', () => {
    for (const name of ['postgres', 'nats', 'minio', 'minio-init', 'migrate', 'prometheus', 'grafana', ...SERVICE_MANIFEST.map((s) => s.name)]) {
      expect([name, services[name] !== undefined]).toEqual([name, true]);
    }
    expect(services.nats!.command).toContain('-js');
    expect(services['minio-init']!.command!.join(' ')).toMatch(/mc mb --ignore-existing local\/\S+/);
  });

  it('gives every long-running container a healthcheck', () => {
    const missing = Object.entries(services)
      .filter(([, s]) => !oneShot(s) && !s.healthcheck)
      .map(([n]) => n);
    expect(missing).toEqual([]);
  });

  it('makes every dependency wait on health or completion, never on mere start', () => {
    for (const [name, s] of Object.entries(services)) {
      if (!s.depends_on) continue;
      expect([name, Array.isArray(s.depends_on)]).toEqual([name, false]);
      for (const [dep, { condition }] of Object.entries(s.depends_on as Record<string, { condition: string }>)) {
        const want = oneShot(services[dep]!) ? 'service_completed_successfully' : 'service_healthy';
        expect([name, dep, condition]).toEqual([name, dep, want]);
        if (want === 'service_healthy') expect(services[dep]!.healthcheck).toBeDefined();
      }
    }
  });

  it('gives NATS a user per service (deploy/nats/auth.conf) and each service its own password', () => {
    const nats = services.nats!;
    expect(nats.command!.slice(0, 2)).toEqual(['-c', '/etc/nats/auth.conf']);
    expect(nats.volumes).toContain('./deploy/nats/auth.conf:/etc/nats/auth.conf:ro');
    const conf = fs.readFileSync(path.join(ROOT, 'deploy/nats/auth.conf'), 'utf8');
    for (const p of BUS_PRINCIPALS) {
      const v = passwordEnvOf(p);
      expect(conf).toContain(`user: "${p}"`);
      expect(conf).toContain(`password: $${v}\n`);
      expect(String(nats.environment![v])).toMatch(new RegExp(`^\\$\\{${v}:-dev-only-nats-${p}-change-me\\}$`));
      if (p === 'admin') continue;
      // The service logs in as itself, with the password the nats container checks.
      expect(services[p]!.environment).toMatchObject({ NATS_USER: p, NATS_PASSWORD: nats.environment![v] });
    }
  });

  it('keeps the webhook address rule on unless WEBHOOK_ALLOW_PRIVATE_URLS is given', () => {
    expect(services['webhook-dispatcher']!.environment!.WEBHOOK_ALLOW_PRIVATE_URLS).toBe('${WEBHOOK_ALLOW_PRIVATE_URLS:-false}');
  });

  it('starts every service after the migrations, Postgres and NATS', () => {
    for (const s of SERVICE_MANIFEST) {
      const deps = services[s.name]!.depends_on as Record<string, { condition: string }>;
      expect(Object.keys(deps).sort()).toEqual(['migrate', 'nats', 'postgres']);
    }
  });

  it('mounts files that exist, and named volumes that are declared', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const v of s.volumes ?? []) {
        const [src] = v.split(':');
        if (src!.startsWith('./')) expect([name, src, fs.existsSync(path.join(ROOT, src!))]).toEqual([name, src, true]);
        else expect(compose.volumes).toHaveProperty(src!);
      }
    }
  });

  it('loads the alert rules into Prometheus and provisions the dashboard in Grafana', () => {
    expect(services.prometheus!.volumes).toContain('./deploy/prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro');
    const prom = parse(fs.readFileSync(path.join(ROOT, 'deploy/prometheus/prometheus.yml'), 'utf8')) as { rule_files: string[] };
    expect(prom.rule_files.map((f) => path.posix.resolve('/etc/prometheus', f))).toEqual(['/etc/prometheus/alerts.yml']);
    const grafana = services.grafana!.volumes!;
    expect(grafana).toContain('./deploy/grafana/provisioning:/etc/grafana/provisioning:ro');
    const providers = parse(fs.readFileSync(path.join(ROOT, 'deploy/grafana/provisioning/dashboards/accounting-api.yml'), 'utf8')) as {
      providers: { options: { path: string } }[];
    };
    const mount = grafana.find((v) => v.startsWith('./deploy/grafana/dashboards:'))!.split(':')[1];
    expect(providers.providers[0]!.options.path).toBe(mount);
    expect(fs.readdirSync(path.join(ROOT, 'deploy/grafana/dashboards')).filter((f) => f.endsWith('.json')).length).toBeGreaterThan(0);
  });
});
