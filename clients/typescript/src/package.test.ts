import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The package as npm would publish it (`npm test` builds dist/ first). `npm publish --dry-run` packs
 * the tarball and checks the manifest without uploading; `--offline` because npm 11 otherwise asks
 * the registry first (about a minute of retries on a machine without network) for nothing this
 * check needs; `--ignore-scripts` because prepublishOnly only builds what `npm test` just built.
 */
const DIR = path.resolve(__dirname, '..');
const npm = (...args: string[]) => execFileSync('npm', args, { cwd: DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

interface Packed {
  name: string;
  version: string;
  filename: string;
  files: { path: string }[];
}

describe('@acct/sdk as published', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(DIR, 'package.json'), 'utf8')) as Record<string, unknown>;
  let packed: Packed;
  beforeAll(() => {
    const out = JSON.parse(npm('publish', '--dry-run', '--json', '--offline', '--ignore-scripts')) as Record<string, Packed>;
    packed = out['@acct/sdk']!;
  });

  it('is publishable: not private, with a version, a license and exports with types', () => {
    expect(manifest.private).toBeUndefined();
    expect(packed).toMatchObject({ name: '@acct/sdk', version: manifest.version });
    expect(manifest.license).toBe('MIT');
    expect(manifest.exports).toMatchObject({ '.': { types: './dist/index.d.ts', default: './dist/index.js' } });
  });

  it('ships the build, its types, README, CHANGELOG and LICENSE, and no source or test', () => {
    const files = packed.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/webhooks.js', 'README.md', 'CHANGELOG.md', 'LICENSE', 'package.json']));
    expect(files.filter((f) => f.startsWith('src/') || /\.test\.|tsbuildinfo|tsconfig/.test(f))).toEqual([]);
  });

  it('has a CHANGELOG entry for its version', () => {
    expect(fs.readFileSync(path.join(DIR, 'CHANGELOG.md'), 'utf8')).toContain(`## ${String(manifest.version)}\n`);
  });

  it('loads from the tarball, installed as the README says (npm pack, then the .tgz)', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-pack-'));
    try {
      const [{ filename }] = JSON.parse(npm('pack', '--json', '--ignore-scripts', '--pack-destination', tmp)) as [Packed];
      const at = path.join(tmp, 'node_modules', '@acct', 'sdk');
      fs.mkdirSync(at, { recursive: true });
      execFileSync('tar', ['-xzf', path.join(tmp, filename), '-C', at, '--strip-components=1']);
      // The one dependency, as npm would install it beside the package.
      fs.symlinkSync(path.dirname(require.resolve('openapi-fetch/package.json')), path.join(tmp, 'node_modules', 'openapi-fetch'));
      const probe =
        "const s = require('@acct/sdk'); process.stdout.write(JSON.stringify([typeof s.Client, typeof s.webhooks.verify, typeof s.ApiError, require('@acct/sdk/package.json').name]))";
      expect(JSON.parse(execFileSync(process.execPath, ['-e', probe], { cwd: tmp, encoding: 'utf8' }))).toEqual(['function', 'function', 'function', '@acct/sdk']);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
