/**
 * The served OpenAPI document under the real Redocly CLI (issue #24): recommended-strict plus the rules
 * of redocly.yaml (descriptions, tags, license, examples valid against their schemas, response
 * headers), 0 errors and 0 warnings. Runs offline: no telemetry, no update check.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ERROR_CODES, OUTBOUND_EVENT_TYPES, ROUTES } from '@acct/contracts';
import { parse } from 'yaml';
import { renderOpenApiYaml } from './openapi';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const REDOCLY = path.join(ROOT, 'node_modules', '.bin', 'redocly');

interface Problem {
  ruleId: string;
  severity: string;
  message: string;
  location: { pointer: string }[];
}

type Doc = {
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, { description?: string; parameters: { description?: string }[]; responses: Record<string, unknown>; requestBody?: unknown }>>;
  webhooks: Record<string, unknown>;
  components: { schemas: Record<string, { properties?: Record<string, { properties?: Record<string, { enum?: string[] }> }> }>; headers: Record<string, unknown> };
};

describe('the OpenAPI document', () => {
  const yaml = renderOpenApiYaml();
  const doc = parse(yaml) as Doc;

  it('passes Redocly recommended-strict and redocly.yaml with no problem at all', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
    const file = path.join(dir, 'openapi.yaml');
    fs.writeFileSync(file, yaml);
    try {
      const { stdout } = await promisify(execFile)(REDOCLY, ['lint', '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json', '--max-problems', '100000', file], {
        cwd: dir,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true', NO_COLOR: '1' },
        maxBuffer: 64 * 1024 * 1024,
      }).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
      const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number; ignored: number }; problems: Problem[] };
      const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
      expect(problems.slice(0, 20)).toEqual([]);
      expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('lists every error code as an enum, every outbound event as a webhook, every tag with a description', () => {
    expect(doc.components.schemas.Error?.properties?.error?.properties?.code?.enum).toEqual([...ERROR_CODES]);
    expect(Object.keys(doc.webhooks)).toEqual([...OUTBOUND_EVENT_TYPES]);
    expect(doc.tags.map((t) => t.name).sort()).toEqual([...new Set(ROUTES.map((r) => r.tag))].sort());
    expect(Object.keys(doc.components.headers).sort()).toEqual([
      'IdempotentReplayed',
      'ModuleWarning',
      'RateLimitLimit',
      'RateLimitRemaining',
      'RateLimitReset',
      'RequestId',
      'RetryAfter',
    ]);
  });

  it('gives every operation an example of its JSON body, its JSON success and one error; every webhook one of its body', () => {
    type Media = Record<string, { example?: unknown }>;
    const json = (r: unknown) => ((r as { content?: Media } | undefined)?.content ?? {})['application/json'];
    const missing: string[] = [];
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const [m, op] of Object.entries(item)) {
        const body = json(op.requestBody);
        if (body && body.example === undefined) missing.push(`${m} ${p}: request body`);
        for (const [s, r] of Object.entries(op.responses)) if (s < '300' && json(r) && json(r)!.example === undefined) missing.push(`${m} ${p}: ${s}`);
        if (!Object.entries(op.responses).some(([s, r]) => s >= '400' && json(r)?.example !== undefined)) missing.push(`${m} ${p}: an error`);
      }
    }
    for (const [type, hook] of Object.entries(doc.webhooks))
      if (json((hook as { post: { requestBody: unknown } }).post.requestBody)?.example === undefined) missing.push(`webhook ${type}`);
    expect(missing).toEqual([]);
  });
});
