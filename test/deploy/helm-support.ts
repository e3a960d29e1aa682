import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ROOT, ensureK8sTools } from './tools';

/** The chart and the helm binary (tools.ts) for the tests that render it. */
export const CHART = path.join(ROOT, 'helm', 'accounting-api');
export const ALL = path.join(CHART, 'ci', 'all-features-values.yaml');
export const EXISTING = path.join(CHART, 'ci', 'existing-secret-values.yaml');
/** The chart's defaults are placeholders: they render only as a local try. */
export const DEV = ['--set', 'development=true'];

export type Doc = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: any;
  data?: any;
  stringData?: any;
};

let helm = '';
/** The helm binary, unpacked on first use. */
export function helmBin(): string {
  return (helm ||= ensureK8sTools().helm);
}
export function helmRun(args: string[]): { status: number; out: string; stderr: string } {
  const r = spawnSync(helmBin(), args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: r.status ?? 1, out: `${r.stdout}${r.stderr}`, stderr: r.stderr };
}
/** `helm template rel <chart> --namespace acct ...extra`, as documents. */
export function render(...extra: string[]): Doc[] {
  const out = execFileSync(helmBin(), ['template', 'rel', CHART, '--namespace', 'acct', ...extra], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return parseAllDocuments(out)
    .map((d) => d.toJS() as Doc)
    .filter(Boolean);
}
export const find = (docs: Doc[], kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);
