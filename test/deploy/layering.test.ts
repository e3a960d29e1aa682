import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The layering, checked over the import graph of every source file (tests included):
 * - libs/contracts imports nothing of ours; each other lib imports only the libs listed below;
 * - libs import no service, and no service imports another service;
 * - a service's domain/ is pure: no database, bus, HTTP or runtime library;
 * - no handler imports another handler (shared rules live in flows/, queries in queries.ts).
 */
const ROOT = path.resolve(__dirname, '..', '..');

const LIB_DEPS: Record<string, string[]> = {
  contracts: [],
  ledger: ['contracts'],
  kit: ['contracts'],
  posting: ['contracts', 'kit', 'ledger'],
};
const TEST_ONLY = new Set(['testing']);
const IMPURE = /^(@mikro-orm\/|nats$|pg$|koa|@koa\/|node:(fs|net|http|child_process)$|@acct\/(kit|posting)$)/;

interface Edge {
  from: string; // repo-relative file
  spec: string; // as written
  target: { kind: 'lib' | 'service' | 'tool' | 'testing' | 'file' | 'external'; name: string; file?: string };
}

function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'dist') continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

function packageOf(file: string): { kind: 'lib' | 'service' | 'tool'; name: string } | null {
  const m = /^(libs|services|tools)\/([^/]+)\//.exec(path.relative(ROOT, file));
  if (!m) return null;
  return { kind: m[1] === 'libs' ? 'lib' : m[1] === 'services' ? 'service' : 'tool', name: m[2]! };
}

function edgesOf(file: string): Edge[] {
  const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  const from = path.relative(ROOT, file);
  return info.importedFiles.map(({ fileName: spec }) => {
    const acct = /^@acct\/([^/]+)/.exec(spec);
    if (acct) {
      const name = acct[1]!;
      if (TEST_ONLY.has(name)) return { from, spec, target: { kind: 'testing' as const, name } };
      const kind = fs.existsSync(path.join(ROOT, 'libs', name)) ? 'lib' : fs.existsSync(path.join(ROOT, 'services', name)) ? 'service' : 'tool';
      return { from, spec, target: { kind, name } };
    }
    if (spec.startsWith('.')) {
      const abs = path.resolve(path.dirname(file), spec);
      const pkg = packageOf(abs + '/x');
      return { from, spec, target: { kind: pkg?.kind ?? 'file', name: pkg?.name ?? '', file: path.relative(ROOT, abs) } };
    }
    return { from, spec, target: { kind: 'external' as const, name: spec } };
  });
}

const files = ['libs', 'services', 'tools'].flatMap((d) => (fs.existsSync(path.join(ROOT, d)) ? sources(path.join(ROOT, d)) : []));
const edges = files.flatMap(edgesOf);
const problems = (pred: (e: Edge, pkg: NonNullable<ReturnType<typeof packageOf>>) => string | null): string[] =>
  edges.flatMap((e) => {
    const pkg = packageOf(path.join(ROOT, e.from));
    const why = pkg ? pred(e, pkg) : null;
    return why ? [`${e.from} imports ${e.spec}: ${why}`] : [];
  });

describe('layering', () => {
  it('reads a real import graph', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(edges.some((e) => e.from.startsWith('services/receivables/') && e.target.kind === 'lib' && e.target.name === 'posting')).toBe(true);
  });

  it('libs import only the libs below them, never a service or a tool', () => {
    expect(
      problems((e, pkg) => {
        if (pkg.kind !== 'lib') return null;
        if (e.target.kind === 'lib' && /\.test\.ts$/.test(e.from) && !(LIB_DEPS[e.target.name] ?? []).includes(pkg.name)) return null; // a lib's tests may use the libs beside it (not above it)
        if (e.target.kind === 'service' || e.target.kind === 'tool') return 'a lib must not import a service or tool';
        if (e.target.kind === 'lib' && e.target.name !== pkg.name && !(LIB_DEPS[pkg.name] ?? []).includes(e.target.name)) {
          return `${pkg.name} may import only ${JSON.stringify(LIB_DEPS[pkg.name] ?? [])}`;
        }
        return null;
      }),
    ).toEqual([]);
  });

  it('every lib is in the layer table', () => {
    expect(fs.readdirSync(path.join(ROOT, 'libs')).filter((d) => !(d in LIB_DEPS))).toEqual([]);
  });

  it('no service imports another service', () => {
    expect(problems((e, pkg) => (pkg.kind === 'service' && e.target.kind === 'service' && e.target.name !== pkg.name ? 'services talk over NATS, not imports' : null))).toEqual([]);
  });

  it("a service's domain/ is pure", () => {
    expect(
      problems((e) => {
        if (!/^services\/[^/]+\/src\/domain\//.test(e.from)) return null;
        if (e.target.kind === 'external' && IMPURE.test(e.spec)) return 'domain code must not touch I/O';
        if (e.target.kind === 'lib' && IMPURE.test(`@acct/${e.target.name}`)) return 'domain code must not touch I/O';
        if (e.target.file && !/\/src\/domain\//.test(e.target.file + '/') && e.target.kind === 'service') return 'domain imports only domain';
        return null;
      }),
    ).toEqual([]);
  });

  it('no handler imports another handler', () => {
    // A handler module is any service source that registers RPC handlers, whatever its name
    // (documents' shares.ts once took helpers from its handlers.ts, unseen by a *.handler.ts rule).
    const handlerModules = new Set(
      files
        .filter((f) => packageOf(f)?.kind === 'service' && !/\.test\.ts$/.test(f) && /\.handle\(\s*'/.test(fs.readFileSync(f, 'utf8')))
        .map((f) => path.relative(ROOT, f).replace(/\.ts$/, '')),
    );
    expect(handlerModules.size).toBeGreaterThan(10);
    expect(handlerModules).toContain('services/documents/src/handlers/shares.handler');
    expect(problems((e) => (handlerModules.has(e.from.replace(/\.ts$/, '')) && handlerModules.has(e.target.file ?? '') ? 'shared rules go to flows/' : null))).toEqual([]);
  });
});
