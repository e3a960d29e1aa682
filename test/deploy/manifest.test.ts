import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { SERVICE_MANIFEST, serviceDir } from '@acct/contracts';
import { OPS_PORT_DEFAULTS } from '@acct/kit';
import { POSTING_MIGRATIONS } from '@acct/posting';

/**
 * The service manifest (libs/contracts) is the one list of processes: the deployment files must
 * carry every entry with its ops port, and nothing the manifest does not know.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const compose = parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { command?: string[]; environment?: Record<string, unknown>; ports?: string[]; healthcheck?: { test: string[] }; depends_on?: unknown }>;
};
const prometheus = parse(fs.readFileSync(path.join(ROOT, 'deploy/prometheus/prometheus.yml'), 'utf8')) as {
  scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
};

describe('SERVICE_MANIFEST', () => {
  it('names each service once, with a unique ops port, and one public entry point last', () => {
    const names = SERVICE_MANIFEST.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    const ports = SERVICE_MANIFEST.map((s) => s.opsPort);
    expect(new Set(ports).size).toBe(ports.length);
    expect(SERVICE_MANIFEST.filter((s) => s.public).map((s) => s.name)).toEqual(['gateway']);
    expect(SERVICE_MANIFEST[SERVICE_MANIFEST.length - 1]!.name).toBe('gateway');
    for (const s of SERVICE_MANIFEST) expect(OPS_PORT_DEFAULTS[s.name]).toBe(s.opsPort);
  });

  it('lists every folder under services/ (so each gets a Deployment, a compose block and a scrape job)', () => {
    const folders = fs
      .readdirSync(path.join(ROOT, 'services'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && fs.existsSync(path.join(ROOT, 'services', d.name, 'package.json')));
    expect(folders.map((d) => d.name).sort()).toEqual(SERVICE_MANIFEST.map((s) => s.name).sort());
  });

  it.each(SERVICE_MANIFEST.map((s) => [s.name, s] as const))('%s has its folder with main.ts and migrate.ts', (_, s) => {
    for (const f of ['main.ts', 'migrate.ts']) expect(fs.existsSync(path.join(ROOT, serviceDir(s.name), 'src', f))).toBe(true);
  });

  it.each(SERVICE_MANIFEST.filter((s) => s.posts).map((s) => [s.name] as const))('posting service %s runs the shared ledger and outbox migrations first', (name) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { migrations } = require(path.join(ROOT, serviceDir(name), 'src', 'migrations')) as { migrations: { name: string }[] };
    expect(migrations.slice(0, POSTING_MIGRATIONS.length).map((m) => m.name)).toEqual(POSTING_MIGRATIONS.map((m) => m.name));
  });
});

describe('docker-compose.yml and Prometheus follow the manifest', () => {
  it.each(SERVICE_MANIFEST.map((s) => [s.name, s] as const))('%s: compose service, ops port, healthcheck, scrape job', (name, s) => {
    const svc = compose.services[name];
    expect(svc).toBeDefined();
    expect(svc!.command).toEqual(['node', `${serviceDir(name)}/dist/main.js`]);
    expect(String(svc!.environment?.OPS_PORT)).toBe(String(s.opsPort));
    expect(svc!.ports).toContain(`${s.opsPort}:${s.opsPort}`);
    expect(svc!.healthcheck?.test.join(' ')).toContain(`127.0.0.1:${s.opsPort}/readyz`);
    if (s.s3) expect(svc!.environment).toHaveProperty('S3_ENDPOINT');
    const job = prometheus.scrape_configs.find((j) => j.job_name === name);
    expect(job?.static_configs.flatMap((c) => c.targets)).toEqual([`${name}:${s.opsPort}`]);
  });

  it('the migrate step runs every service in manifest order', () => {
    const cmd = compose.services.migrate!.command!.join(' ');
    expect(cmd).toContain(`for s in ${SERVICE_MANIFEST.map((s) => s.name).join(' ')}; do`);
  });

  it('scrapes and runs no service the manifest does not know', () => {
    const known = new Set<string>(SERVICE_MANIFEST.map((s) => s.name));
    const jobs = prometheus.scrape_configs.map((j) => j.job_name).filter((j) => j !== 'prometheus');
    expect(jobs.filter((j) => !known.has(j))).toEqual([]);
    const apps = Object.entries(compose.services).filter(([, svc]) => (svc.command ?? []).join(' ').includes('/dist/main.js'));
    expect(apps.map(([n]) => n).filter((n) => !known.has(n))).toEqual([]);
  });
});
