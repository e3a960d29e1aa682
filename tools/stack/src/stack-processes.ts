import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SERVICE_MANIFEST, type ServiceManifestEntry, serviceDir } from '@acct/contracts';
import type { ListeningReport } from '@acct/kit';
import { tailLines } from './log-tail';
import { startRoundRobin } from './round-robin';
import { type LocalS3, startLocalS3 } from './s3';
import { DEFAULT_SUPERVISE, ROOT, type RunningService, type StackOptions, type SupervisePolicy } from './stack-options';

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

/** Sends `signal`, then SIGKILL if the process is still there after 20 s; its exit code. */
async function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  const done = exited(child);
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await done;
  clearTimeout(timer);
  return code;
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

/** Where the stack's own lines go (exits, restarts) unless StackOptions.log says. */
function defaultStackLog(logs: StackOptions['logs']): (line: string) => void {
  if (logs === 'inherit') return (line) => process.stdout.write(`[stack] ${line}\n`);
  const file = path.join(logs.dir, 'stack.log');
  return (line) => fs.appendFileSync(file, `${new Date().toISOString()} ${line}\n`);
}

/**
 * The processes of one stack: every service's instances (`name`, `name#i` for replicas), their
 * supervisor (restart with backoff), the round-robin balancer in front of several gateways and
 * the local S3 server. stop() leaves no child process behind.
 */
export class StackProcesses {
  /** Running processes by instance (`receivables`, `receivables#1`, ...). */
  readonly services = new Map<string, RunningService>();
  /** The public port once known: the balancer's, the one given, or the one the single gateway bound. */
  publicPort: number;
  s3?: LocalS3;
  private balancer?: Awaited<ReturnType<typeof startRoundRobin>>;
  private readonly replicas: number;
  private readonly timeoutMs: number;
  private readonly policy?: SupervisePolicy;
  private readonly log: (line: string) => void;
  private readonly baseEnv: NodeJS.ProcessEnv;
  private readonly publicBaseGiven: boolean;
  /** Every child process started and not yet exited: stop() leaves none behind. */
  private readonly children = new Set<ChildProcess>();
  /** Instances that should be running: the supervisor restarts only these. */
  private readonly wanted = new Set<string>();
  private readonly restartTimers = new Map<string, NodeJS.Timeout>();
  /** Exits in a row without a healthy period between (the backoff's exponent), and restarts so far. */
  private readonly exitsInARow = new Map<string, number>();
  private readonly restartsOf = new Map<string, number>();
  private stopping = false;

  private constructor(private readonly opts: StackOptions) {
    this.replicas = opts.replicas ?? 1;
    this.timeoutMs = opts.readyTimeoutMs ?? 30_000;
    this.policy = opts.supervise ? { ...DEFAULT_SUPERVISE, ...(opts.supervise === true ? {} : opts.supervise) } : undefined;
    this.log = opts.log ?? defaultStackLog(opts.logs);
    this.baseEnv = {
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
    this.publicBaseGiven = this.baseEnv.PUBLIC_BASE_URL !== undefined;
    this.publicPort = opts.gatewayPort;
  }

  /** The logs folder made; with several gateways, the balancer on the public port (port 0: a free one, no race). */
  static async create(opts: StackOptions): Promise<StackProcesses> {
    if (opts.logs !== 'inherit') fs.mkdirSync(opts.logs.dir, { recursive: true });
    const procs = new StackProcesses(opts);
    if (procs.replicas > 1) {
      const gatewayPorts = () => [...procs.services.values()].flatMap((s) => (s.httpPort ? [s.httpPort] : []));
      procs.balancer = await startRoundRobin(opts.gatewayPort, gatewayPorts);
      procs.publicPort = procs.balancer.port;
    }
    if (procs.publicPort !== 0) procs.setPublicPort(procs.publicPort);
    return procs;
  }

  /** Customer portal links point at this stack's gateway unless given. */
  private setPublicPort(port: number): void {
    this.publicPort = port;
    this.baseEnv.GATEWAY_PORT = String(port);
    if (!this.publicBaseGiven) this.baseEnv.PUBLIC_BASE_URL = `http://127.0.0.1:${port}`;
  }

  /** Document storage: the S3_ENDPOINT given, else an s3rver of our own (on a port it binds itself). */
  async startS3(): Promise<void> {
    this.s3 = this.baseEnv.S3_ENDPOINT ? undefined : await startLocalS3({ dir: this.opts.s3Dir });
    if (this.s3) Object.assign(this.baseEnv, this.s3.env);
  }

  /** Runs one service's migrations to the end; throws (with its log's last lines) unless they succeed. */
  async migrate(def: ServiceManifestEntry): Promise<void> {
    const logName = `${def.name}.migrate`;
    const code = await exited(this.run([path.join(serviceDir(def.name), 'dist', 'migrate.js')], this.baseEnv, logName));
    if (code !== 0) throw new Error(`migrations of ${def.name} failed (exit ${code})${logTail(this.opts.logs, logName)}`);
  }

  private run(cmd: string[], env: NodeJS.ProcessEnv, logName: string): ChildProcess {
    const child = run(cmd, env, this.opts.logs, logName);
    this.children.add(child);
    child.once('exit', () => this.children.delete(child));
    return child;
  }

  /** One line: each instance, up or down, and its restarts. */
  status(): string {
    return [...this.services.values()]
      .map((s) => `${s.instance} ${alive(s.child) ? (s.readyAt ? 'up' : 'starting') : 'down'}${s.restarts ? ` (${s.restarts} restart${s.restarts === 1 ? '' : 's'})` : ''}`)
      .join(', ');
  }

  gatewayUrls(): string[] {
    return [...this.services.values()].filter((s) => s.httpPort).map((s) => `http://127.0.0.1:${s.httpPort}`);
  }

  private instancesOf(name: string): string[] {
    return name.includes('#') ? [name] : Array.from({ length: this.replicas }, (_, i) => (i === 0 ? name : `${name}#${i}`));
  }

  replicaInstance(name: string, replica: number): string {
    if (!SERVICE_MANIFEST.some((d) => d.name === name)) throw new Error(`unknown service ${name}`);
    if (!Number.isInteger(replica) || replica < 0 || replica >= this.replicas) throw new Error(`${name} has replicas 0..${this.replicas - 1}, not ${replica}`);
    return replica === 0 ? name : `${name}#${replica}`;
  }

  private onExit(svc: RunningService, code: number | null, signal: NodeJS.Signals | null): void {
    const { instance } = svc;
    if (this.stopping || !this.wanted.has(instance) || this.services.get(instance) !== svc) return; // asked to stop, or replaced
    const how = signal ? `signal ${signal}` : `code ${code}`;
    const policy = this.policy;
    if (!policy) {
      this.log(`${instance} (pid ${svc.child.pid}) exited (${how}); not restarted (supervision off)`);
      return;
    }
    if (svc.readyAt && Date.now() - svc.readyAt >= policy.resetAfterMs) this.exitsInARow.set(instance, 0);
    const n = this.exitsInARow.get(instance) ?? 0;
    this.exitsInARow.set(instance, n + 1);
    const delay = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** n);
    const restarts = (this.restartsOf.get(instance) ?? 0) + 1;
    this.log(`${instance} (pid ${svc.child.pid}) exited (${how}); restart ${restarts} in ${delay} ms`);
    this.restartTimers.set(
      instance,
      setTimeout(() => this.restart(instance, restarts), delay),
    );
  }

  private restart(instance: string, restarts: number): void {
    this.restartTimers.delete(instance);
    if (this.stopping || !this.wanted.has(instance)) return;
    this.restartsOf.set(instance, restarts);
    this.startInstance(instance).then(
      () => this.log(`${instance} is back (pid ${this.services.get(instance)?.child.pid}, restart ${restarts}); ${this.status()}`),
      (e: unknown) => {
        this.log(`${instance}: restart ${restarts} failed: ${e instanceof Error ? e.message : String(e)}`);
        // Not ready in time but running: killed, so that its exit brings the next attempt.
        const again = this.services.get(instance);
        if (again && alive(again.child)) again.child.kill('SIGKILL');
      },
    );
  }

  private forgetRestart(instance: string): void {
    clearTimeout(this.restartTimers.get(instance));
    this.restartTimers.delete(instance);
  }

  /** Starts one instance and waits until ready (waits for the one there is when it runs). */
  async startInstance(instance: string): Promise<void> {
    const name = instance.split('#')[0]!;
    const def = SERVICE_MANIFEST.find((d) => d.name === name);
    if (!def) throw new Error(`unknown service ${name}`);
    const running = this.services.get(instance);
    if (running && alive(running.child)) {
      // Started twice would orphan the first process: wait for the one there is.
      if (!running.readyAt) await waitReady(running, this.timeoutMs);
      return;
    }
    this.wanted.add(instance);
    this.forgetRestart(instance);
    const logName = instance.replace('#', '-');
    const svc = this.spawnInstance(def, instance, logName);
    await waitReady(svc, this.timeoutMs).catch((e: unknown) => {
      // The reason is in the process's own log: its last lines go with the error (a CI run that
      // fails here keeps only its output).
      throw new Error(`${e instanceof Error ? e.message : String(e)}${logTail(this.opts.logs, logName)}`);
    });
    if (def.public && this.replicas === 1 && this.publicPort === 0) this.setPublicPort(svc.httpPort!);
  }

  private spawnInstance(def: ServiceManifestEntry, instance: string, logName: string): RunningService {
    const name = def.name;
    // 0: the process binds a free port itself and reports it over IPC (no pick-then-bind race).
    const opsPort = (instance === name ? this.opts.opsPorts?.[name] : undefined) ?? 0;
    const env: NodeJS.ProcessEnv = { ...this.baseEnv, OPS_PORT: String(opsPort) };
    const seed = this.opts.natsSeeds?.[name];
    if (seed) Object.assign(env, { NATS_NKEY_SEED: seed, NATS_USER: '', NATS_PASSWORD: '' });
    let httpPort: number | undefined;
    if (def.public) {
      // One gateway: on the public port (the same one again on a restart); several: each on a
      // free port of its own behind the balancer, a new one on each start.
      httpPort = this.replicas === 1 ? this.publicPort : 0;
      env.GATEWAY_PORT = String(httpPort);
    }
    const child = this.run([path.join(serviceDir(name), 'dist', 'main.js')], env, logName);
    const replica = instance === name ? 0 : Number(instance.split('#')[1]);
    const svc: RunningService = { def, instance, opsPort, child, httpPort, replica, restarts: this.restartsOf.get(instance) ?? 0, readyAt: 0 };
    child.on('message', (m: Partial<ListeningReport>) => {
      if (typeof m?.port !== 'number') return;
      if (m.acctListening === 'ops') svc.opsPort = m.port;
      if (m.acctListening === 'http' && def.public) svc.httpPort = m.port;
    });
    child.once('exit', (code, signal) => this.onExit(svc, code, signal));
    this.services.set(instance, svc);
    return svc;
  }

  /** Starts every process of a service (or one instance, `name#i`) and waits until ready. */
  async startService(name: string): Promise<void> {
    await Promise.all(this.instancesOf(name).map((i) => this.startInstance(i)));
  }

  /** Stops one instance (the supervisor does not start it again); its exit code, null when none ran. */
  async stopInstance(instance: string, signal: NodeJS.Signals): Promise<number | null> {
    this.wanted.delete(instance);
    this.forgetRestart(instance);
    const svc = this.services.get(instance);
    if (!svc) return null;
    this.services.delete(instance);
    return kill(svc.child, signal);
  }

  /** Stops every process of a service (or one instance); the exit code of the last. */
  async stopService(name: string, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    let code: number | null = null;
    for (const i of this.instancesOf(name)) code = (await this.stopInstance(i, signal)) ?? code;
    return code;
  }

  /** Stops every process it started (the supervisor's restarts included), the balancer and the local S3. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const t of this.restartTimers.values()) clearTimeout(t);
    this.restartTimers.clear();
    await this.balancer?.close();
    // Gateway first, so no new work reaches services that are going away.
    for (const def of [...SERVICE_MANIFEST].reverse()) await this.stopService(def.name);
    // Anything still running that the map no longer names (a start that failed half way, ...).
    await Promise.all([...this.children].map((child) => kill(child, 'SIGTERM')));
    await this.s3?.stop();
  }
}
