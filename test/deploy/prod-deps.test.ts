import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './tools';

/**
 * The production image installs `npm ci --omit=dev` (Dockerfile, prod-deps stage): what the tests,
 * `npm start` or the compiler need must not be there. s3rver (with dicer 0.3.0, CVE-2022-24434) and
 * type packages once were. `npm audit --omit=dev` (in .ci/run) needs the registry; this check of the
 * same tree does not.
 */
interface Node {
  version?: string;
  dependencies?: Record<string, Node>;
}

const DEV_ONLY = /^(s3rver|dicer|@sparticuz\/chromium|playwright-core|jest|ts-jest|typescript|eslint|prettier|autocannon|fast-check|pdf-parse|stripe|vite|rolldown)$/;

function productionTree(): Set<string> {
  const out = execFileSync('npm', ['ls', '--omit=dev', '--all', '--json'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
  const names = new Set<string>();
  const walk = (n: Node): void => {
    for (const [name, d] of Object.entries(n.dependencies ?? {})) {
      if (names.has(`${name}@${d.version}`)) continue;
      names.add(`${name}@${d.version}`);
      walk(d);
    }
  };
  walk(JSON.parse(out) as Node);
  return names;
}

describe('production dependencies (the image)', () => {
  it('carry no test or development tool', () => {
    const tree = productionTree();
    expect(tree.size).toBeGreaterThan(50);
    expect([...tree].filter((n) => DEV_ONLY.test(n.replace(/@[^@]*$/, '')))).toEqual([]);
  });

  it('no workspace lists a type package or a dev tool among its dependencies', () => {
    const manifests = [
      'package.json',
      ...['libs', 'services', 'tools', 'clients'].flatMap((d) => fs.readdirSync(path.join(ROOT, d)).map((w) => path.join(d, w, 'package.json'))),
    ].filter((f) => fs.existsSync(path.join(ROOT, f)));
    const bad: string[] = [];
    for (const f of manifests) {
      const deps = Object.keys((JSON.parse(fs.readFileSync(path.join(ROOT, f), 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {});
      for (const d of deps) if (d.startsWith('@types/') || DEV_ONLY.test(d)) bad.push(`${f}: ${d}`);
    }
    expect(bad).toEqual([]);
  });
});
