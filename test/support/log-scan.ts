/**
 * Scans service logs for things that must never be logged (API-DECISIONS §10, SPEC §7): API keys,
 * Authorization header values, passwords, and the personal data (e-mails) a test sent.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface LogFinding {
  file: string;
  line: number;
  kind: string;
  /** The offending line, cut to 300 characters, with every secret replaced by <kind>. */
  excerpt: string;
}

export interface LogScan {
  files: number;
  lines: number;
  findings: LogFinding[];
  /** Lines with findings left out because they contain one of options.excuseLinesWith. */
  excused: number;
}

export interface ScanOptions {
  /** Lines containing any of these (e.g. the request ids of known defects) are counted, not reported. */
  excuseLinesWith?: readonly string[];
}

/** Leaks recognised by shape, whatever the test sent. */
const PATTERNS: { kind: string; re: RegExp }[] = [
  { kind: 'api_key', re: /svc_(?:test|live)_[0-9A-Za-z]{8,}/ },
  { kind: 'authorization', re: /\b(?:authorization|proxy-authorization)\b["']?\s*[:=]\s*["']?(?:bearer|basic|token)\s+\S/i },
  { kind: 'bearer_token', re: /\bBearer\s+[A-Za-z0-9._~+/-]{16,}/ },
  { kind: 'password', re: /\b(?:password|passwd|pwd)\b["']?\s*[:=]\s*["']?[^\s"',}]+/i },
  { kind: 'url_credentials', re: /[a-z][a-z0-9+.-]*:\/\/[^\s/:@"']+:[^\s/@"']+@/i },
];

function redact(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const s of secrets) out = out.split(s).join('<secret>');
  for (const { kind, re } of PATTERNS) out = out.replace(new RegExp(re.source, `${re.flags.replace('g', '')}g`), `<${kind}>`);
  return out.length > 300 ? `${out.slice(0, 300)}…` : out;
}

/**
 * Every line of every file under `dir` (recursively), checked for the given secrets (exact
 * substrings, e.g. the test's API keys and the customer e-mails it used) and the PATTERNS above.
 */
export function scanLogs(dir: string, secrets: readonly string[], options: ScanOptions = {}): LogScan {
  const wanted = [...new Set(secrets.filter((s) => s.length >= 6))];
  const excuses = (options.excuseLinesWith ?? []).filter((s) => s.length > 0);
  const result: LogScan = { files: 0, lines: 0, findings: [], excused: 0 };
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) scanFile(p);
    }
  };
  const scanFile = (file: string) => {
    result.files++;
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    lines.forEach((line, i) => {
      result.lines++;
      const kinds = new Set<string>();
      for (const s of wanted) if (line.includes(s)) kinds.add(s.includes('@') ? 'email' : 'secret');
      for (const { kind, re } of PATTERNS) if (re.test(line)) kinds.add(kind);
      if (kinds.size && excuses.some((x) => line.includes(x))) {
        result.excused++;
        return;
      }
      for (const kind of kinds) result.findings.push({ file: path.relative(dir, file), line: i + 1, kind, excerpt: redact(line, wanted) });
    });
  };
  if (fs.existsSync(dir)) walk(dir);
  return result;
}
