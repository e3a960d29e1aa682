import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { SERVICE_MANIFEST, type ServiceManifestEntry, serviceDir } from '@acct/contracts';
import { type ListeningReport, ensureDatabase } from '@acct/kit';
import { tailLines } from './log-tail';
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
  /**
   * Restart a process that exits without being asked to (crash, kill -9), after a delay that
   * doubles from minDelayMs up to maxDelayMs with each exit in a row, back to minDelayMs once a
   * process stayed up resetAfterMs. Off by default (the tests kill and start processes themselves);
   * `true`: the defaults (0.5 s, 30 s, 60 s). An exit is logged either way.
   */
  supervise?: boolean | Partial<SupervisePolicy>;
  /** Where the stack's own lines go (exits, restarts); default: stdout with logs 'inherit', else stack.log in the logs folder. */
  log?: (line: string) => void;
}

export interface SupervisePolicy {
  minDelayMs: number;
  maxDelayMs: number;
  resetAfterMs: number;
}

export const DEFAULT_SUPERVISE: SupervisePolicy = { minDelayMs: 500, maxDelayMs: 30_000, resetAfterMs: 60_000 };

export interface RunningService {
  def: ServiceManifestEntry;
  /** The service's name for its first process, `name#i` for the (i+1)th. */
  instance: string;
  /** The ops port: the one given, else the one the process bound and reported (known once ready). */
  opsPort: number;
  child: ChildProcess;
  /** The public port (gateways only). */
  httpPort?: number;
  /** Which process of the service: 0 for `name`, i for `name#i`. */
  replica: number;
  /** How often the supervisor started this instance again after it exited on its own. */
  restarts: number;
  /** When it answered /readyz 200 (0: not yet). */
  readyAt: number;
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
  /** Stops one process of a service: replica 0 is `name`, i is `name#i`; its exit code (null: killed by a signal, or none running). */
  stopReplica(name: string, replica: number, signal?: NodeJS.Signals): Promise<number | null>;
  /** Starts one process of a service again and waits until ready (nothing to do when it runs). */
  startReplica(name: string, replica: number): Promise<void>;
  /** One line: each instance, up or down, and its restarts. */
  status(): string;
  /** Stops every process it started (the supervisor's restarts included): none is left running. */
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

/** The last lines of a service's log file, as text to append to an error ('' with logs 'inherit'). */
function logTail(logs: StackOptions['logs'], logName: string, lines = 15): string {
  if (logs === 'inherit') return '';
  const file = path.join(logs.dir, `${logName}.log`);
  const tail = tailLines(file, lines);
  return tail.length ? `; the last lines of ${file}:\n${tail.join('\n')}` : '';
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

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
      if (res.status === 200) {
        svc.readyAt = Date.now();
        return;
      }
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
  const policy: SupervisePolicy | undefined = opts.supervise ? { ...DEFAULT_SUPERVISE, ...(opts.supervise === true ? {} : opts.supervise) } : undefined;
  const stackLog =
    opts.log ??
    (opts.logs === 'inherit'
      ? (line: string) => process.stdout.write(`[stack] ${line}\n`)
      : (line: string) => fs.appendFileSync(path.join((opts.logs as { dir: string }).dir, 'stack.log'), `${new Date().toISOString()} ${line}\n`));
  /** Every child process started and not yet exited: stop() leaves none behind. */
  const children = new Set<ChildProcess>();
  /** Instances that should be running: the supervisor restarts only these. */
  const wanted = new Set<string>();
  const restartTimers = new Map<string, NodeJS.Timeout>();
  /** Exits in a row without a healthy period between (the backoff's exponent), and restarts so far. */
  const exitsInARow = new Map<string, number>();
  const restartsOf = new Map<string, number>();
  let stopping = false;
  const track = (child: ChildProcess) => {
    children.add(child);
    child.once('exit', () => children.delete(child));
    return child;
  };

  const status = () =>
    [...services.values()]
      .map((s) => `${s.instance} ${alive(s.child) ? (s.readyAt ? 'up' : 'starting') : 'down'}${s.restarts ? ` (${s.restarts} restart${s.restarts === 1 ? '' : 's'})` : ''}`)
      .join(', ');

  const onExit = (svc: RunningService, code: number | null, signal: NodeJS.Signals | null) => {
    const { instance } = svc;
    if (stopping || !wanted.has(instance) || services.get(instance) !== svc) return; // asked to stop, or replaced
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (!policy) {
      stackLog(`${instance} (pid ${svc.child.pid}) exited (${how}); not restarted (supervision off)`);
      return;
    }
    if (svc.readyAt && Date.now() - svc.readyAt >= policy.resetAfterMs) exitsInARow.set(instance, 0);
    const n = exitsInARow.get(instance) ?? 0;
    exitsInARow.set(instance, n + 1);
    const delay = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** n);
    const restarts = (restartsOf.get(instance) ?? 0) + 1;
    stackLog(`${instance} (pid ${svc.child.pid}) exited (${how}); restart ${restarts} in ${delay} ms`);
    restartTimers.set(
      instance,
      setTimeout(() => {
        restartTimers.delete(instance);
        if (stopping || !wanted.has(instance)) return;
        restartsOf.set(instance, restarts);
        startInstance(instance).then(
          () => stackLog(`${instance} is back (pid ${services.get(instance)?.child.pid}, restart ${restarts}); ${status()}`),
          (e: unknown) => {
            stackLog(`${instance}: restart ${restarts} failed: ${e instanceof Error ? e.message : String(e)}`);
            // Not ready in time but running: killed, so that its exit brings the next attempt.
            const again = services.get(instance);
            if (again && alive(again.child)) again.child.kill('SIGKILL');
          },
        );
      }, delay),
    );
  };

  const startInstance = async (instance: string) => {
    const name = instance.split('#')[0]!;
    const def = SERVICE_MANIFEST.find((d) => d.name === name);
    if (!def) throw new Error(`unknown service ${name}`);
    const running = services.get(instance);
    if (running && alive(running.child)) {
      // Started twice would orphan the first process: wait for the one there is.
      if (!running.readyAt) await waitReady(running, timeout);
      return;
    }
    wanted.add(instance);
    clearTimeout(restartTimers.get(instance));
    restartTimers.delete(instance);
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
    const logName = instance.replace('#', '-');
    const child = track(run([path.join(serviceDir(def.name), 'dist', 'main.js')], env, opts.logs, logName));
    const replica = instance === name ? 0 : Number(instance.split('#')[1]);
    const svc: RunningService = { def, instance, opsPort, child, httpPort, replica, restarts: restartsOf.get(instance) ?? 0, readyAt: 0 };
    child.on('message', (m: Partial<ListeningReport>) => {
      if (typeof m?.port !== 'number') return;
      if (m.acctListening === 'ops') svc.opsPort = m.port;
      if (m.acctListening === 'http' && def.public) svc.httpPort = m.port;
    });
    child.once('exit', (code, signal) => onExit(svc, code, signal));
    services.set(instance, svc);
    await waitReady(svc, timeout).catch((e: unknown) => {
      // The reason is in the process's own log: its last lines go with the error (a CI run that
      // fails here keeps only its output).
      throw new Error(`${e instanceof Error ? e.message : String(e)}${logTail(opts.logs, logName)}`);
    });
    if (def.public && replicas === 1 && publicPort === 0) setPublicPort(svc.httpPort!);
  };
  const startService = async (name: string) => {
    await Promise.all(instancesOf(name).map(startInstance));
  };

  const stopInstance = async (instance: string, signal: NodeJS.Signals) => {
    wanted.delete(instance);
    clearTimeout(restartTimers.get(instance));
    restartTimers.delete(instance);
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
  const replicaInstance = (name: string, replica: number) => {
    if (!SERVICE_MANIFEST.some((d) => d.name === name)) throw new Error(`unknown service ${name}`);
    if (!Number.isInteger(replica) || replica < 0 || replica >= replicas) throw new Error(`${name} has replicas 0..${replicas - 1}, not ${replica}`);
    return replica === 0 ? name : `${name}#${replica}`;
  };
  const stopReplica = async (name: string, replica: number, signal: NodeJS.Signals = 'SIGTERM') => stopInstance(replicaInstance(name, replica), signal);
  const startReplica = async (name: string, replica: number) => startInstance(replicaInstance(name, replica));

  const gatewayUrls = () => [...services.values()].filter((s) => s.httpPort).map((s) => `http://127.0.0.1:${s.httpPort}`);

  let s3: LocalS3 | undefined;
  const stop = async () => {
    stopping = true;
    for (const t of restartTimers.values()) clearTimeout(t);
    restartTimers.clear();
    await balancer?.close();
    // Gateway first, so no new work reaches services that are going away.
    for (const def of [...SERVICE_MANIFEST].reverse()) await stopService(def.name);
    // Anything still running that the map no longer names (a start that failed half way, ...).
    await Promise.all(
      [...children].map(async (child) => {
        const done = exited(child);
        child.kill('SIGTERM');
        const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await done;
        clearTimeout(kill);
      }),
    );
    await s3?.stop();
  };

  try {
    // Document storage: the S3_ENDPOINT given, else an s3rver of our own (on a port it binds itself).
    s3 = baseEnv.S3_ENDPOINT ? undefined : await startLocalS3({ dir: opts.s3Dir });
    if (s3) Object.assign(baseEnv, s3.env);
    await ensureDatabase(opts.databaseUrl);
    for (const def of SERVICE_MANIFEST) {
      const child = track(run([path.join(serviceDir(def.name), 'dist', 'migrate.js')], baseEnv, opts.logs, `${def.name}.migrate`));
      const code = await exited(child);
      if (code !== 0) throw new Error(`migrations of ${def.name} failed (exit ${code})${logTail(opts.logs, `${def.name}.migrate`)}`);
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
  return {
    gatewayUrl: `http://127.0.0.1:${publicPort}`,
    gatewayUrls,
    services,
    stopService,
    startService,
    stopReplica,
    startReplica,
    status,
    stop,
    ...(s3 ? { s3 } : {}),
  };
}
