import fs from 'node:fs';
import path from 'node:path';

/** One row of the Metrics table of deploy/README.md. */
export interface DocumentedMetric {
  name: string;
  type: 'counter' | 'gauge' | 'histogram';
  exposedBy: 'all' | 'gateway' | 'posting services' | 'webhook-dispatcher' | 'documents';
}

/** The metrics deploy/README.md documents (its "## Metrics" table). */
export function documentedMetrics(): DocumentedMetric[] {
  const text = fs.readFileSync(path.resolve(__dirname, '..', '..', 'deploy', 'README.md'), 'utf8');
  const section = text.slice(text.indexOf('\n## Metrics'), text.indexOf('\n## ', text.indexOf('\n## Metrics') + 5));
  return [...section.matchAll(/^\| `([a-z][a-z0-9_:]*)` \| (counter|gauge|histogram) \|[^|]*\| (all|gateway|posting services|webhook-dispatcher|documents) \|/gm)].map((m) => ({
    name: m[1]!,
    type: m[2] as DocumentedMetric['type'],
    exposedBy: m[3] as DocumentedMetric['exposedBy'],
  }));
}
