import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { SERVICE_MANIFEST, type ServiceManifestEntry, serviceDir } from '@acct/contracts';
import { type ListeningReport, ensureDatabase } from '@acct/kit';
import { startRoundRobin } from './round-robin';
import { type LocalS3, startLocalS3 } from './s3';

/** Repository root, from tools/stack/{src,dist}. */
export const ROOT = path.resolve(__dirname, '..', '..', '..');

export interface StackOptions {
  databaseUrl: string;
  natsUrl: string;
  natsPrefix: string;
  /** The public port; 0: one the system picks (stack.gatewayUrl tells which). */
  gatewayPort: number;
  /** Ops ports by service name; the others bind a free port of their own and report it (RunningService.opsPort). */
  opsPorts?: Record<string, number>;
  /** Extra environment for every process (RATE_LIMIT_RPS, LOG_LEVEL, ...). */
  env?: Record<string, string>;
  /** 'inherit' writes service logs to this process's stdout; a folder gets one file per service. */
  logs: 'inherit' | { dir: string };
  readyTimeoutMs?: number;
  /**
   * Processes per service (default 1). With more, the gateways listen on free ports of their own
   * behind a round-robin TCP balancer on gatewayPort, and each service's processes share its queue group.
   */
  replicas?: number;
  /**
   * NATS credentials by principal (generateStackBusAuth), when the stack's nats-server has users:
   * each process gets its own nkey seed as NATS_NKEY_SEED.
   */
  natsSeeds?: Partial<Record<string, string>>;
  /** Folder of the local S3 server (s3rver) started when no S3_ENDPOINT is set; a temporary one by default. */
  s3Dir?: string;
}

export interface RunningService {
  def: ServiceManifestEntry;
  /** The service's name for its first process, `name#i` for the (i+1)th. */
  instance: string;
  /** The ops port: the one given, else the one the process bound and reported (known once ready). */
  opsPort: number;
  child: ChildProcess;
  /** The public port (gateways only). */
  httpPort?: number;
}

export interface Stack {
  gatewayUrl: string;
  /** Each gateway process's own URL (one unless replicas > 1). */
  gatewayUrls(): string[];
  /** Running processes by instance (`receivables`, `receivables#1`, ...). */
  services: Map<string, RunningService>;
  /** Stops every process of a service (or one instance, `name#i`); the exit code of the last. */
  stopService(name: string, signal?: NodeJS.Signals): Promise<number | null>;
  /** Starts every process of a service (or one instance) again and waits until ready. */
  startService(name: string): Promise<void>;
  stop(): Promise<void>;
  /** The local S3 server, when the stack started one (no S3_ENDPOINT given). */
  s3?: LocalS3;
}

/**
 * A port that was free a moment ago. Whoever binds it later may find it taken by then: prefer
 * letting the process that listens bind port 0 and report the port; where that cannot be
 * (nats-server's route ports), retry the start on fresh ports (NatsCluster.start).
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** The manifest's ops ports start at this one (gateway 9100, receivables 9101, ...). */
export const MANIFEST_OPS_BASE = Math.min(...SERVICE_MANIFEST.map((s) => s.opsPort));

/**
 * Ops ports of `npm start`: the manifest's defaults shifted to start at OPS_PORT_BASE (so a second
 * stack on the same machine can use e.g. OPS_PORT_BASE=9200); none when it is 0, so each service
 * binds a free port of its own and reports it (RunningService.opsPort).
 */
export function opsPortsFor(base: number): Record<string, number> {
  const ports: Record<string, number> = {};
  if (base === 0) return ports;
  for (const s of SERVICE_MANIFEST) ports[s.name] = base + (s.opsPort - MANIFEST_OPS_BASE);
  return ports;
}

function run(cmd: string[], env: NodeJS.ProcessEnv, logs: StackOptions['logs'], logName: string): ChildProcess {
  const out = logs === 'inherit' ? 'inherit' : fs.openSync(path.join(logs.dir, `${logName}.log`), 'a');
  // The IPC channel carries the ports a service bound (reportListening in @acct/kit).
  const stdio: ['ignore', 'inherit' | number, 'inherit' | number, 'ipc'] = ['ignore', out, out, 'ipc'];
  // STACK_NODE_ARGS: extra node flags for every service process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (env.STACK_NODE_ARGS ?? '').split(' ').filter(Boolean);
  return spawn(process.execPath, [...nodeArgs, ...cmd], { cwd: ROOT, env, stdio });
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

async function waitReady(svc: RunningService, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  svc.child.once('exit', (code) => (exitCode = code));
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`${svc.def.name} exited with code ${exitCode} before it was ready`);
    // Ports the process binds itself are known once it reports them.
    if (svc.opsPort === 0 || svc.httpPort === 0) {
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    try {
      const res = await fetch(`http://127.0.0.1:${svc.opsPort}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${svc.def.name} was not ready within ${timeoutMs} ms`);
}

/**
 * Creates the database if missing, runs every service's migrations, starts every service as its own
 * process and waits until each one's /readyz is green.
 */
export async function startStack(opts: StackOptions): Promise<Stack> {
  if (opts.logs !== 'inherit') fs.mkdirSync(opts.logs.dir, { recursive: true });
  const replicas = opts.replicas ?? 1;
  const services = new Map<string, RunningService>();
  // Several gateways: the balancer takes the public port, bound here (port 0: a free one, no race).
  const balancer = replicas > 1 ? await startRoundRobin(opts.gatewayPort, () => [...services.values()].flatMap((s) => (s.httpPort ? [s.httpPort] : []))) : undefined;
  /** The public port once known: the balancer's, the one given, or the one the single gateway bound. */
  let publicPort = balancer?.port ?? opts.gatewayPort;
  const baseEnv: NodeJS.ProcessEnv = {
    // Local stacks only: the keys that encrypt webhook endpoint and payment-processor secrets, unless given.
    WEBHOOK_SECRET_KEY: 'dev-only-webhook-secret-key-change-me-please',
    PROCESSOR_SECRET_KEY: 'dev-only-processor-secret-key-change-me-please',
    // Local stacks deliver webhooks to receivers on 127.0.0.1: the address rule is lifted unless given.
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    ...process.env,
    ...opts.env,
    DATABASE_URL: opts.databaseUrl,
    NATS_URL: opts.natsUrl,
    NATS_PREFIX: opts.natsPrefix,
  };
  const publicBaseGiven = baseEnv.PUBLIC_BASE_URL !== undefined;
  /** Customer portal links point at this stack's gateway unless given. */
  const setPublicPort = (port: number) => {
    publicPort = port;
    baseEnv.GATEWAY_PORT = String(port);
    if (!publicBaseGiven) baseEnv.PUBLIC_BASE_URL = `http://127.0.0.1:${port}`;
  };
  if (publicPort !== 0) setPublicPort(publicPort);
  const timeout = opts.readyTimeoutMs ?? 30_000;
  const instancesOf = (name: string): string[] => (name.includes('#') ? [name] : Array.from({ length: replicas }, (_, i) => (i === 0 ? name : `${name}#${i}`)));

  const startInstance = async (instance: string) => {
    const name = instance.split('#')[0]!;
    const def = SERVICE_MANIFEST.find((d) => d.name === name);
    if (!def) throw new Error(`unknown service ${name}`);
    // 0: the process binds a free port itself and reports it over IPC (no pick-then-bind race).
    const opsPort = (instance === name ? opts.opsPorts?.[name] : undefined) ?? 0;
    const env: NodeJS.ProcessEnv = { ...baseEnv, OPS_PORT: String(opsPort) };
    const seed = opts.natsSeeds?.[name];
    if (seed) Object.assign(env, { NATS_NKEY_SEED: seed, NATS_USER: '', NATS_PASSWORD: '' });
    let httpPort: number | undefined;
    if (def.public) {
      // One gateway: on the public port (the same one again on a restart); several: each on a
      // free port of its own behind the balancer, a new one on each start.
      httpPort = replicas === 1 ? publicPort : 0;
      env.GATEWAY_PORT = String(httpPort);
    }
    const child = run([path.join(serviceDir(def.name), 'dist', 'main.js')], env, opts.logs, instance.replace('#', '-'));
    const svc: RunningService = { def, instance, opsPort, child, httpPort };
    child.on('message', (m: Partial<ListeningReport>) => {
      if (typeof m?.port !== 'number') return;
      if (m.acctListening === 'ops') svc.opsPort = m.port;
      if (m.acctListening === 'http' && def.public) svc.httpPort = m.port;
    });
    services.set(instance, svc);
    await waitReady(svc, timeout);
    if (def.public && replicas === 1 && publicPort === 0) setPublicPort(svc.httpPort!);
  };
  const startService = async (name: string) => {
    await Promise.all(instancesOf(name).map(startInstance));
  };

  const stopInstance = async (instance: string, signal: NodeJS.Signals) => {
    const svc = services.get(instance);
    if (!svc) return null;
    services.delete(instance);
    const done = exited(svc.child);
    svc.child.kill(signal);
    const kill = setTimeout(() => svc.child.kill('SIGKILL'), 20_000);
    const code = await done;
    clearTimeout(kill);
    return code;
  };
  const stopService = async (name: string, signal: NodeJS.Signals = 'SIGTERM') => {
    let code: number | null = null;
    for (const i of instancesOf(name)) code = (await stopInstance(i, signal)) ?? code;
    return code;
  };

  const gatewayUrls = () => [...services.values()].filter((s) => s.httpPort).map((s) => `http://127.0.0.1:${s.httpPort}`);

  let s3: LocalS3 | undefined;
  const stop = async () => {
    await balancer?.close();
    // Gateway first, so no new work reaches services that are going away.
    for (const def of [...SERVICE_MANIFEST].reverse()) await stopService(def.name);
    await s3?.stop();
  };

  try {
    // Document storage: the S3_ENDPOINT given, else an s3rver of our own (on a port it binds itself).
    s3 = baseEnv.S3_ENDPOINT ? undefined : await startLocalS3({ dir: opts.s3Dir });
    if (s3) Object.assign(baseEnv, s3.env);
    await ensureDatabase(opts.databaseUrl);
    for (const def of SERVICE_MANIFEST) {
      const child = run([path.join(serviceDir(def.name), 'dist', 'migrate.js')], baseEnv, opts.logs, `${def.name}.migrate`);
      const code = await exited(child);
      if (code !== 0) throw new Error(`migrations of ${def.name} failed (exit ${code})`);
    }
    // Every service of the manifest, in its order (services first, the gateway last); except that
    // a single gateway on a port of its choosing starts first, as the others need its URL
    // (PUBLIC_BASE_URL) and only it knows the port once it listens.
    const order = publicPort === 0 ? [...SERVICE_MANIFEST.filter((d) => d.public), ...SERVICE_MANIFEST.filter((d) => !d.public)] : SERVICE_MANIFEST;
    for (const def of order) await startService(def.name);
  } catch (e) {
    await stop();
    throw e;
  }
  return { gatewayUrl: `http://127.0.0.1:${publicPort}`, gatewayUrls, services, stopService, startService, stop, ...(s3 ? { s3 } : {}) };
}
