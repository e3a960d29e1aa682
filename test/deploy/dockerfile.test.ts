import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { SERVICE_MANIFEST, serviceDir } from '@acct/contracts';

/**
 * The image cannot be built here (no Docker engine), so this checks what can be checked offline:
 * the stages and what the runtime stage keeps, the user, the init, and that every path a command
 * (the image's CMD, docker-compose.yml, the Helm chart's values) runs exists in the build output
 * after `npm run build`, under a folder the build stage gathers.
 */
const ROOT = path.resolve(__dirname, '..', '..');

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  from: string;
  name: string;
  body: Instruction[];
}

/** Dockerfile instructions (comments dropped, `\` continuations joined), grouped by stage. */
function parseDockerfile(text: string): { args: Record<string, string>; stages: Stage[] } {
  const joined = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of joined.split('\n')) {
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const op = m[1]!.toUpperCase();
    const rest = m[2]!.trim();
    if (op === 'FROM') {
      const f = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      stages.push({ from: f![1]!, name: f![2] ?? String(stages.length), body: [] });
    } else if (op === 'ARG' && stages.length === 0) {
      const [k, v] = rest.split('=');
      args[k!] = v ?? '';
    } else if (stages.length) {
      stages[stages.length - 1]!.body.push({ op, args: rest });
    }
  }
  return { args, stages };
}

const { args, stages } = parseDockerfile(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
const stage = (name: string) => {
  const s = stages.find((x) => x.name === name);
  if (!s) throw new Error(`no stage ${name}`);
  return s;
};
const runtime = stages[stages.length - 1]!;
const json = (i: Instruction | undefined) => JSON.parse(i?.args ?? 'null') as string[];

describe('Dockerfile', () => {
  it('builds on Node 24 in separate stages and ends with the runtime stage', () => {
    expect(args.NODE_IMAGE).toMatch(/^node:24[-.\w]*$/);
    expect(stages.map((s) => s.name)).toEqual(['manifests', 'build', 'prod-deps', 'runtime']);
    for (const s of stages) expect(s.from).toBe('${NODE_IMAGE}');
  });

  it('compiles in the build stage and installs production dependencies only for the runtime', () => {
    const build = stage('build')
      .body.filter((i) => i.op === 'RUN')
      .map((i) => i.args);
    expect(build.some((r) => /npm ci\b/.test(r) && !r.includes('--omit=dev'))).toBe(true);
    expect(build.some((r) => r.includes('npm run build'))).toBe(true);
    const prod = stage('prod-deps')
      .body.filter((i) => i.op === 'RUN')
      .map((i) => i.args);
    expect(prod.some((r) => /npm ci\b.*--omit=dev/.test(r))).toBe(true);
    const copies = runtime.body.filter((i) => i.op === 'COPY').map((i) => i.args);
    expect(copies).toContain('--from=prod-deps /app/node_modules ./node_modules');
    // Only build outputs and manifests reach the runtime: no source tree, no dev node_modules.
    expect(copies.every((c) => c.startsWith('--from='))).toBe(true);
    expect(copies.some((c) => c.startsWith('--from=build /app/node_modules'))).toBe(false);
  });

  it('runs as a numeric non-root user under tini, the gateway by default', () => {
    const user = runtime.body.filter((i) => i.op === 'USER').pop();
    expect(user?.args).toMatch(/^[1-9]\d*(:\d+)?$/);
    // USER comes after the last RUN and COPY: nothing after it runs as root.
    const idx = runtime.body.indexOf(user!);
    expect(runtime.body.slice(idx).filter((i) => i.op === 'RUN' || i.op === 'COPY')).toEqual([]);
    expect(json(runtime.body.find((i) => i.op === 'ENTRYPOINT'))).toEqual(['/usr/bin/tini', '--']);
    expect(runtime.body.some((i) => i.op === 'RUN' && /apt-get install .*\btini\b/.test(i.args))).toBe(true);
    expect(json(runtime.body.find((i) => i.op === 'CMD'))).toEqual(['node', 'services/gateway/dist/main.js']);
    expect(runtime.body.find((i) => i.op === 'ENV')?.args).toContain('NODE_ENV=production');
  });
});

/** The folders the build stage gathers into /out (its `for d in ...` loop). */
function gatheredFolders(): string[] {
  const run = stage('build').body.find((i) => i.op === 'RUN' && i.args.includes('/out'))!.args;
  const globs = /for d in ([^;]+);/.exec(run)![1]!.trim().split(/\s+/);
  return globs.flatMap((g) => {
    const [parent] = g.split('/');
    return fs
      .readdirSync(path.join(ROOT, parent!))
      .map((d) => `${parent}/${d}`)
      .filter((d) => fs.existsSync(path.join(ROOT, d, 'package.json')));
  });
}

describe('paths the image runs exist in the build output (after npm run build)', () => {
  const gathered = gatheredFolders();
  const inImage = (file: string) => {
    expect(fs.existsSync(path.join(ROOT, file))).toBe(true);
    expect(gathered.some((d) => file.startsWith(`${d}/dist/`))).toBe(true);
  };

  it.each(SERVICE_MANIFEST.map((s) => [s.name] as const))('%s: dist/main.js and dist/migrate.js', (name) => {
    inImage(`${serviceDir(name)}/dist/main.js`);
    inImage(`${serviceDir(name)}/dist/migrate.js`);
  });

  it('every lib a service imports is gathered too', () => {
    for (const lib of fs.readdirSync(path.join(ROOT, 'libs'))) inImage(`libs/${lib}/dist/index.js`);
  });

  it('the admin CLI the docs run in the image exists', () => inImage('services/gateway/dist/admin/cli.js'));

  // The gateway serves the dashboard from @acct/dashboard's dist (services/gateway/src/dashboard/pages.ts).
  it("the dashboard's built pages the gateway serves", () => inImage('clients/dashboard/dist/index.html'));

  it('every node command of docker-compose.yml runs a file of the build output', () => {
    const compose = parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as { services: Record<string, { command?: string[] }> };
    const files = Object.values(compose.services)
      .flatMap((s) => (s.command ?? []).join(' ').match(/services\/[\w$/.-]+\.js/g) ?? [])
      .flatMap((f) => (f.includes('$$s') ? SERVICE_MANIFEST.map((s) => f.replace('$$s', s.name)) : [f]));
    expect(files.length).toBeGreaterThan(SERVICE_MANIFEST.length);
    for (const f of new Set(files)) inImage(f);
  });
});

describe('.dockerignore', () => {
  const patterns = fs
    .readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const ignored = (p: string) => patterns.some((pat) => pat === p || pat === p.split('/')[0] || (pat.startsWith('**/') && p.split('/').includes(pat.slice(3))));

  it('keeps dependencies, build outputs, secrets and local tools out of the context', () => {
    for (const p of ['node_modules', 'dist', '.git', '.tools', '.env', '*.tsbuildinfo']) expect(patterns).toContain(p);
  });

  it('keeps in what the build stage needs', () => {
    const needed = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.base.json', 'libs', 'services', 'tools', 'clients', 'test/bench'];
    for (const p of needed) expect([p, ignored(p)]).toEqual([p, false]);
  });
});
