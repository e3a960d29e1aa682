import { SERVICE_MANIFEST, type ServiceManifestEntry } from '@acct/contracts';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * The parts of the deployment files that follow SERVICE_MANIFEST, written by `npm run deploy:gen`
 * (deploy-gen.ts) and checked by test/deploy/deploy-gen.test.ts: adding a service to the manifest
 * needs no hand edit of compose, Prometheus, the alerts or the chart.
 *
 * In a hand-written file, only the regions between `# >>> generated: <id>` and `# <<< generated: <id>`
 * are rewritten (the markers' indentation is kept); the rest (comments, Postgres, NATS, MinIO,
 * per-service extras) stays as written. Whole files are generated only where nothing is hand-written:
 * the chart's copy of the alerts and its list of services.
 */

/** Published HTTP port of the public service (the gateway) in docker-compose.yml. */
const COMPOSE_HTTP_PORT = 8080;

export const DEPLOY_FILES = {
  compose: 'docker-compose.yml',
  prometheus: 'deploy/prometheus/prometheus.yml',
  alerts: 'deploy/prometheus/alerts.yml',
  chartAlerts: 'helm/accounting-api/files/alerts.yml',
  chartServices: 'helm/accounting-api/files/services.yaml',
  chartSchema: 'helm/accounting-api/values.schema.json',
  tsconfig: 'tsconfig.json',
} as const;

/** Replaces the lines between the markers of region `id`, indented like the opening marker. */
export function replaceRegion(text: string, file: string, id: string, body: string[]): string {
  const lines = text.split('\n');
  const open = lines.findIndex((l) => l.trim().startsWith(`# >>> generated: ${id}`));
  const close = lines.findIndex((l, i) => i > open && l.trim() === `# <<< generated: ${id}`);
  if (open < 0 || close < 0) throw new Error(`${file}: no region "# >>> generated: ${id}" … "# <<< generated: ${id}"`);
  const indent = /^\s*/.exec(lines[open]!)![0];
  return [...lines.slice(0, open + 1), ...body.map((l) => (l === '' ? '' : indent + l)), ...lines.slice(close)].join('\n');
}

const quote = (s: string) => JSON.stringify(s);
const readyProbe = (port: number) => `fetch('http://127.0.0.1:${port}/readyz').then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))`;

/**
 * docker-compose.yml: the migrate step's order and one block per service. A service's extra
 * variables are the hand-written top-level block `x-<name>-env: &<name>-env` (merged after
 * x-base-env, and x-s3-env for `s3: true`), so a new service with none needs no edit here.
 */
export function renderCompose(text: string, manifest: readonly ServiceManifestEntry[] = SERVICE_MANIFEST): string {
  const top = Object.keys((parse(text) as Record<string, unknown>) ?? {});
  const extras = new Set(top.filter((k) => /^x-.+-env$/.test(k)).map((k) => k.slice(2, -4)));
  const names = new Set<string>(manifest.map((s) => s.name));
  const stray = [...extras].filter((n) => n !== 'base' && n !== 's3' && !names.has(n));
  if (stray.length) throw new Error(`${DEPLOY_FILES.compose}: ${stray.map((n) => `x-${n}-env`).join(', ')} names no service of SERVICE_MANIFEST`);
  if (manifest.some((s) => s.s3) && !extras.has('s3')) throw new Error(`${DEPLOY_FILES.compose}: a service has s3: true, and there is no x-s3-env block`);
  const block = (s: ServiceManifestEntry): string[] => {
    const merged = ['*base-env', ...(s.s3 ? ['*s3-env'] : []), ...(extras.has(s.name) ? [`*${s.name}-env`] : [])];
    const ports = [...(s.public ? [COMPOSE_HTTP_PORT] : []), s.opsPort];
    return [
      `${s.name}:`,
      `  <<: *app`,
      `  command: ["node", "services/${s.name}/dist/main.js"]`,
      `  environment:`,
      `    <<: ${merged.length === 1 ? merged[0] : `[${merged.join(', ')}]`}`,
      `    OPS_PORT: "${s.opsPort}"`,
      ...(s.public ? [`    GATEWAY_PORT: "${COMPOSE_HTTP_PORT}"`, `    GATEWAY_HOST: 0.0.0.0`] : []),
      `  ports:`,
      ...ports.map((p) => `    - "${p}:${p}"`),
      `  depends_on: *app-deps`,
      `  healthcheck:`,
      `    test: ["CMD", "node", "-e", ${quote(readyProbe(s.opsPort))}]`,
      `    interval: 10s`,
      `    timeout: 5s`,
      `    retries: 3`,
      `    start_period: 20s`,
    ];
  };
  const order = `command: ["sh", "-ec", "for s in ${manifest.map((s) => s.name).join(' ')}; do node services/$$s/dist/migrate.js; done"]`;
  const withOrder = replaceRegion(text, DEPLOY_FILES.compose, 'migrate order', [order]);
  return replaceRegion(
    withOrder,
    DEPLOY_FILES.compose,
    'services',
    manifest.flatMap((s, i) => [...(i ? [''] : []), ...block(s)]),
  );
}

/** prometheus.yml: one scrape job per service, named after it, with the `service` label the alerts use. */
export function renderPrometheus(text: string, manifest: readonly ServiceManifestEntry[] = SERVICE_MANIFEST): string {
  const job = (s: ServiceManifestEntry) => [
    `- job_name: ${s.name}`,
    `  metrics_path: /metrics`,
    `  static_configs:`,
    `    - targets: ["${s.name}:${s.opsPort}"]`,
    `      labels:`,
    `        service: ${s.name}`,
  ];
  return replaceRegion(
    text,
    DEPLOY_FILES.prometheus,
    'scrape jobs',
    manifest.flatMap((s, i) => [...(i ? [''] : []), ...job(s)]),
  );
}

/**
 * alerts.yml: the two alerts that must name every service (`up == 0` scoped to them, and `absent`,
 * which has no regex form); the other rules select by metric and need no list.
 */
export function renderAlerts(text: string, manifest: readonly ServiceManifestEntry[] = SERVICE_MANIFEST): string {
  const names = manifest.map((s) => s.name);
  const down = replaceRegion(text, DEPLOY_FILES.alerts, 'service down', [`expr: up{service=~"${names.join('|')}"} == 0`]);
  return replaceRegion(down, DEPLOY_FILES.alerts, 'service absent', [`expr: ${names.map((n) => `absent(up{service="${n}"})`).join(' or ')}`]);
}

/** The chart's list of services (files/services.yaml): what its templates range over. */
export function renderChartServices(manifest: readonly ServiceManifestEntry[] = SERVICE_MANIFEST): string {
  return [
    `# Generated from SERVICE_MANIFEST (libs/contracts/src/manifest.ts) by \`npm run deploy:gen\`: do not edit.`,
    `# The processes of the system in manifest order (the order of the migrations), with the facts the`,
    `# chart takes from the manifest; what an operator tunes is in values.yaml (serviceDefaults, services.<name>).`,
    `services:`,
    ...manifest.flatMap((s) => [`  - name: ${s.name}`, `    opsPort: ${s.opsPort}`, `    s3: ${s.s3}`, `    public: ${s.public}`]),
    '',
  ].join('\n');
}

/** values.schema.json: services.<name> and database.perService accept only the manifest's names (the two `propertyNames` enums). */
export function renderChartSchema(text: string, manifest: readonly ServiceManifestEntry[] = SERVICE_MANIFEST): string {
  const names = manifest.map((s) => s.name);
  let count = 0;
  const out = text.replace(/("propertyNames": \{\s*"enum": )\[[^\]]*\]/g, (_, head: string) => {
    count++;
    return `${head}[${names.map(quote).join(', ')}]`;
  });
  type Props = Record<string, { propertyNames?: { enum?: string[] }; properties?: Props }>;
  const props = (JSON.parse(out) as { properties: Props }).properties;
  const enums = [props.services?.propertyNames?.enum, props.database?.properties?.perService?.propertyNames?.enum];
  if (count !== 2 || enums.some((e) => e?.join() !== names.join()))
    throw new Error(`${DEPLOY_FILES.chartSchema}: want exactly two propertyNames enums, under services and database.perService`);
  return out;
}

/** Every file `npm run deploy:gen` writes, by path from the root, with the content it must have. */
/**
 * tsconfig.json, the build's project references: every lib and tool folder, the services of the
 * manifest in its order, the client libraries (clients/*) and the bench. `tsc -b` orders the build by their own references.
 */
export function renderTsconfig(root: string, manifest: readonly ServiceManifestEntry[] = SERVICE_MANIFEST): string {
  const folders = (dir: string) =>
    fs
      .readdirSync(path.join(root, dir), { withFileTypes: true })
      .filter((e) => e.isDirectory() && fs.existsSync(path.join(root, dir, e.name, 'tsconfig.json')))
      .map((e) => `${dir}/${e.name}`)
      .sort();
  const paths = [...folders('libs'), ...manifest.map((s) => `services/${s.name}`), ...folders('tools'), ...folders('clients'), 'test/bench'];
  return `{\n  "files": [],\n  "references": [\n${paths.map((p) => `    { "path": ${quote(p)} }`).join(',\n')}\n  ]\n}\n`;
}

export function deployFiles(root: string, manifest: readonly ServiceManifestEntry[] = SERVICE_MANIFEST): Map<string, string> {
  const read = (f: string) => fs.readFileSync(path.join(root, f), 'utf8');
  const alerts = renderAlerts(read(DEPLOY_FILES.alerts), manifest);
  return new Map([
    [DEPLOY_FILES.compose, renderCompose(read(DEPLOY_FILES.compose), manifest)],
    [DEPLOY_FILES.prometheus, renderPrometheus(read(DEPLOY_FILES.prometheus), manifest)],
    [DEPLOY_FILES.alerts, alerts],
    [DEPLOY_FILES.chartAlerts, alerts],
    [DEPLOY_FILES.chartServices, renderChartServices(manifest)],
    [DEPLOY_FILES.chartSchema, renderChartSchema(read(DEPLOY_FILES.chartSchema), manifest)],
    [DEPLOY_FILES.tsconfig, renderTsconfig(root, manifest)],
  ]);
}
