/**
 * `npm run bench:documents`: upload and download throughput of a 10 MiB file through the gateway,
 * with the CPU the gateway and the documents service spent per request, and the gateway's peak
 * RSS during 10 parallel 20 MiB uploads. Starts its own stack (own database, NATS prefix, ports,
 * s3rver unless S3_ENDPOINT is set). BENCH_DOC_ROUNDS (5): sequential uploads and downloads timed.
 * Figures are of this machine at this moment: compare before/after in one run.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminCli, startStack, type Stack } from '@acct/stack';

const ROUNDS = Number(process.env.BENCH_DOC_ROUNDS ?? 5);
const PG_SERVER_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const MiB = 1024 * 1024;
const TICK_S = 100; // USER_HZ: /proc counts CPU time in 1/100 s on Linux

/** CPU time (user + system) of a process so far, ms, from /proc. */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICK_S;
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

function form(bytes: Buffer, name: string): FormData {
  const f = new FormData();
  f.append('document_type', 'receipt');
  f.append('file', new Blob([bytes], { type: 'application/pdf' }), name);
  return f;
}

async function main(): Promise<void> {
  const id = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const u = new URL(PG_SERVER_URL);
  u.pathname = `/acct_benchdoc_${id}`;
  const databaseUrl = u.toString();
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-benchdoc-'));
  let stack: Stack | undefined;
  try {
    stack = await startStack({
      databaseUrl,
      natsUrl: NATS_URL,
      natsPrefix: `benchdoc-${id}`.replace(/_/g, '-'),
      gatewayPort: 0,
      logs: { dir: logDir },
      env: { LOG_LEVEL: 'warn', RATE_LIMIT_RPS: '1000000', RATE_LIMIT_BURST: '1000000' },
    });
    const boot = await adminCli<{ test_key: string }>(databaseUrl, 'bootstrap', '--name', 'Bench documents', '--json');
    const auth = { authorization: `Bearer ${boot.test_key}` };
    const url = `${stack.gatewayUrl}/api/v1/documents`;
    const gw = stack.services.get('gateway')!.child.pid!;
    const docs = stack.services.get('documents')!.child.pid!;
    const file10 = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(10 * MiB - 9)]);

    const upload = async (bytes: Buffer, name: string): Promise<string> => {
      const r = await fetch(url, { method: 'POST', headers: auth, body: form(bytes, name) });
      const body = (await r.json()) as { data: { id: string } };
      if (r.status !== 201) throw new Error(`upload failed: ${r.status} ${JSON.stringify(body)}`);
      return body.data.id;
    };
    await upload(file10, 'warmup.pdf');

    const time = async (fn: () => Promise<void>) => {
      const cpu0 = [cpuMs(gw), cpuMs(docs)];
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < ROUNDS; i++) await fn();
      const s = Number(process.hrtime.bigint() - t0) / 1e9;
      return { mibPerS: (ROUNDS * 10) / s, msPerReq: (s * 1000) / ROUNDS, gwCpuMs: (cpuMs(gw) - cpu0[0]!) / ROUNDS, docsCpuMs: (cpuMs(docs) - cpu0[1]!) / ROUNDS };
    };
    let last = '';
    const up = await time(async () => {
      last = await upload(file10, 'ten.pdf');
    });
    const down = await time(async () => {
      const r = await fetch(`${url}/${last}/download`, { headers: auth });
      const got = Buffer.from(await r.arrayBuffer());
      if (r.status !== 200 || got.length !== file10.length) throw new Error(`download failed: ${r.status} ${got.length}`);
    });

    const file20 = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(20 * MiB - 9)]);
    const base = rssMiB(gw);
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(gw))), 10);
    const t0 = Date.now();
    await Promise.all(Array.from({ length: 10 }, (_, i) => upload(file20, `par-${i}.pdf`)));
    const parS = (Date.now() - t0) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rssMiB(gw));

    const lines = [
      `documents bench (${ROUNDS} rounds; 2 shared cores: noisy, compare within one run)`,
      `upload   10 MiB: ${up.mibPerS.toFixed(1)} MiB/s, ${up.msPerReq.toFixed(0)} ms/request, CPU per request: gateway ${up.gwCpuMs.toFixed(0)} ms, documents ${up.docsCpuMs.toFixed(0)} ms`,
      `download 10 MiB: ${down.mibPerS.toFixed(1)} MiB/s, ${down.msPerReq.toFixed(0)} ms/request, CPU per request: gateway ${down.gwCpuMs.toFixed(0)} ms, documents ${down.docsCpuMs.toFixed(0)} ms`,
      `10 parallel 20 MiB uploads: ${parS.toFixed(1)} s; gateway RSS ${base.toFixed(0)} MiB before, peak ${peak.toFixed(0)} MiB (sampled every 10 ms)`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await stack?.stop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${String((e as Error).stack ?? e)}\n`);
    process.exit(1);
  },
);
