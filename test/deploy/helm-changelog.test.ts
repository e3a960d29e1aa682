import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { CHART, helmRun } from './helm-support';

/** The chart's release notes: its changelog and upgrade notes follow Chart.yaml, and are packaged with it. */
describe('CHANGELOG.md and UPGRADING.md', () => {
  const chart = parse(fs.readFileSync(path.join(CHART, 'Chart.yaml'), 'utf8')) as { version: string; appVersion: string };
  const changelog = fs.readFileSync(path.join(CHART, 'CHANGELOG.md'), 'utf8');
  const upgrading = fs.readFileSync(path.join(CHART, 'UPGRADING.md'), 'utf8');

  it("the changelog's newest version is Chart.yaml's, below an Unreleased section, and names its appVersion", () => {
    const versions = [...changelog.matchAll(/^## \[([^\]]+)\]/gm)].map((m) => m[1]!);
    expect(versions[0]).toBe('Unreleased');
    expect(versions[1]).toBe(chart.version);
    for (const v of versions.slice(1)) expect(v).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    const newest = changelog.slice(changelog.indexOf(`## [${chart.version}]`)).split(/^## /m)[1]!;
    expect(newest).toContain(`appVersion ${chart.appVersion}`);
  });

  it('UPGRADING says what major, minor and patch mean, how migrations run, and has notes for the current version', () => {
    for (const word of ['**major**', '**minor**', '**patch**', 'appVersion', 'pre-install,pre-upgrade', 'helm rollback', 'helm test'])
      expect([word, upgrading.includes(word)]).toEqual([word, true]);
    expect(upgrading).toMatch(new RegExp(`^### ${chart.version.replace(/\./g, '\\.')}$`, 'm'));
  });

  it('are packaged with the chart, with the test pod', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'chart-'));
    try {
      const r = helmRun(['package', CHART, '--destination', out]);
      expect([r.status, r.out]).toEqual([0, expect.stringContaining('Successfully packaged')]);
      const tgz = path.join(out, `accounting-api-${chart.version}.tgz`);
      const files = execFileSync('tar', ['-tzf', tgz], { encoding: 'utf8' }).split('\n');
      for (const f of ['CHANGELOG.md', 'UPGRADING.md', 'templates/tests/gateway-readyz.yaml']) expect([f, files.includes(`accounting-api/${f}`)]).toEqual([f, true]);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
