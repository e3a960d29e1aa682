import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { SERVICE_MANIFEST, type ServiceManifestEntry } from '@acct/contracts';
import { DEPLOY_FILES, deployFiles, renderChartServices, renderCompose, renderPrometheus, renderTsconfig, replaceRegion } from '../../tools/stack/src/deploy-files';
import { ROOT } from './tools';

/**
 * The deployment files follow SERVICE_MANIFEST through `npm run deploy:gen`
 * (tools/stack/src/deploy-files.ts): what is committed is what the generator writes.
 */
describe('npm run deploy:gen', () => {
  const generated = deployFiles(ROOT);
  it.each(Object.values(DEPLOY_FILES))('%s is up to date with SERVICE_MANIFEST (else run npm run deploy:gen)', (file) => {
    const want = generated.get(file);
    expect(fs.readFileSync(path.join(ROOT, file), 'utf8')).toBe(want);
  });

  // A service added to the manifest only: what the generator makes of it.
  const extra = { name: 'ledger-export', opsPort: 9106, queue: 'ledger-export', posts: false, s3: true, public: false } as unknown as ServiceManifestEntry;
  const others = SERVICE_MANIFEST.filter((s) => s.name !== extra.name);
  const manifest = [...others.slice(0, -1), extra, others[others.length - 1]!];
  const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');

  it('gives a new service its compose block, migrate step and scrape job, keeping the hand-written parts', () => {
    const compose = parse(renderCompose(read(DEPLOY_FILES.compose), manifest), { merge: true }) as { services: Record<string, any> };
    const svc = compose.services['ledger-export'];
    expect(svc.command).toEqual(['node', 'services/ledger-export/dist/main.js']);
    expect(svc.environment).toMatchObject({ OPS_PORT: '9106', S3_BUCKET: 'accounting-documents', NATS_PREFIX: 'acct' });
    expect(svc.environment.WEBHOOK_SECRET_KEY).toBeUndefined();
    expect(compose.services['webhook-dispatcher'].environment.WEBHOOK_SECRET_KEY).toContain('dev-only-webhook-secret-key');
    expect(compose.services.migrate.command.join(' ')).toContain('webhook-dispatcher ledger-export gateway; do');
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['postgres', 'nats', 'minio', 'prometheus', 'grafana']));
    const prom = parse(renderPrometheus(read(DEPLOY_FILES.prometheus), manifest)) as { scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[] };
    expect(prom.scrape_configs.find((j) => j.job_name === 'ledger-export')?.static_configs[0]!.targets).toEqual(['ledger-export:9106']);
    expect(prom.scrape_configs.map((j) => j.job_name)).toContain('prometheus');
    expect(parse(renderChartServices(manifest)).services).toContainEqual({ name: 'ledger-export', opsPort: 9106, s3: true, public: false });
    const refs = (JSON.parse(renderTsconfig(ROOT, manifest)) as { references: { path: string }[] }).references.map((r) => r.path);
    expect(refs).toContain('services/ledger-export');
    expect(refs.filter((r) => r.startsWith('libs/'))).toEqual(['libs/contracts', 'libs/kit', 'libs/ledger', 'libs/posting']);
  });

  it('refuses an x-<name>-env block of no service, and a file without its markers', () => {
    const compose = read(DEPLOY_FILES.compose);
    expect(() => renderCompose(compose, SERVICE_MANIFEST.slice(1))).toThrow('x-receivables-env names no service of SERVICE_MANIFEST');
    expect(() => replaceRegion('a: 1\n', 'x.yml', 'services', [])).toThrow('x.yml: no region');
  });
});
