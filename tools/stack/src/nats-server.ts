import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { BusPrincipal } from '@acct/contracts';
import { generateBusNkeys, natsAuthOptions } from '@acct/kit';
import { type ConnectionOptions, connect } from 'nats';
import { tailLines } from './log-tail';

/** The nats-server binary: NATS_SERVER_BIN, else the one on PATH, else the Debian package's. */
export function natsServerBin(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NATS_SERVER_BIN) return env.NATS_SERVER_BIN;
  for (const dir of (env.PATH ?? '').split(':')) {
    const p = `${dir}/nats-server`;
    if (dir && fs.existsSync(p)) return p;
  }
  return '/usr/sbin/nats-server';
}

/** A chosen port was taken by another process before nats-server bound it: start again on fresh ports. */
export class PortInUseError extends Error {}

/** How often a start on picked ports is tried again when one of them was taken meanwhile. */
export const PORT_CLASH_RETRIES = 5;

/** Membership of a node in a NATS cluster: its own route port, the others' and the cluster's name. */
export interface NatsClusterMember {
  name: string;
  clusterName: string;
  clusterPort: number;
  routes: number[];
}

/**
 * Users on the server (the bus as a trust boundary): its `authorization` config (renderNatsAuthorization
 * in @acct/kit) and the connect options of the `admin` user, with which readiness is checked.
 */
export interface NatsServerAuth {
  config: string;
  admin: Partial<ConnectionOptions>;
}

/** Users for a server the stack tool starts: a fresh nkey per principal; each process gets its seed as NATS_NKEY_SEED. */
export function generateStackBusAuth(prefix: string): { server: NatsServerAuth; seeds: Record<BusPrincipal, string> } {
  const { seeds, config } = generateBusNkeys(prefix);
  return { seeds, server: { config, admin: natsAuthOptions({ NATS_NKEY_SEED: seeds.admin }, 'admin') } };
}

/**
 * A NATS server with JetStream that belongs to this test or stack alone: one port, one store dir,
 * one log file, optionally a node of a cluster. kill() is kill -9; start() again runs it on the same
 * port and store (a crash and restart).
 */
export class OwnNatsServer {
  private child?: ChildProcess;
  readonly url: string;

  constructor(
    readonly port: number,
    readonly storeDir: string,
    readonly logFile: string,
    readonly cluster?: NatsClusterMember,
    readonly auth?: NatsServerAuth,
  ) {
    this.url = `nats://127.0.0.1:${port}`;
  }

  /** The config file holding the users (beside the log file), when the server has some. */
  get configFile(): string | undefined {
    return this.auth ? path.join(path.dirname(this.logFile), `${path.basename(this.logFile, '.log')}.auth.conf`) : undefined;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the server and resolves once JetStream answers (its streams recovered from the store). */
  async start(timeoutMs = 30_000): Promise<void> {
    if (this.child) throw new Error('nats-server already running');
    fs.mkdirSync(this.storeDir, { recursive: true });
    fs.mkdirSync(path.dirname(this.logFile), { recursive: true });
    const args = ['-js', '-a', '127.0.0.1', '-p', String(this.port), '-sd', this.storeDir, '-l', this.logFile];
    if (this.auth) {
      fs.writeFileSync(this.configFile!, this.auth.config, { mode: 0o600 });
      args.unshift('-c', this.configFile!);
    }
    const c = this.cluster;
    if (c) {
      args.push('-n', c.name, '--cluster_name', c.clusterName, '--cluster', `nats://127.0.0.1:${c.clusterPort}`);
      args.push('--routes', c.routes.map((p) => `nats://127.0.0.1:${p}`).join(','));
    }
    // Only this start's lines of the log (it is appended to across restarts) tell why it exited.
    const logFrom = fs.existsSync(this.logFile) ? fs.statSync(this.logFile).size : 0;
    // This process's environment as it is now: a config may read variables ($NATS_PASSWORD_...).
    const child = spawn(natsServerBin(), args, { stdio: 'ignore', env: process.env });
    this.child = child;
    let exited: string | undefined;
    child.once('exit', (code, signal) => (exited = `code ${code}, signal ${signal}`));
    child.once('error', (e) => (exited = String(e)));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (exited) {
        this.child = undefined;
        const message = `nats-server exited before it was ready (${exited}); see ${this.logFile}${lastLines(this.logFile, logFrom)}`;
        throw portInUse(this.logFile, logFrom) ? new PortInUseError(`${message}: address already in use`) : new Error(message);
      }
      try {
        const nc = await connect({
          servers: this.url,
          reconnect: false,
          timeout: 1000,
          ...this.auth?.admin,
        });
        try {
          await (await nc.jetstreamManager()).getAccountInfo();
          return;
        } finally {
          await nc.close();
        }
      } catch {
        // not up yet, or JetStream still recovering
      }
      if (Date.now() > deadline) throw new Error(`nats-server was not ready within ${timeoutMs} ms; see ${this.logFile}${lastLines(this.logFile, logFrom)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** kill -9 and wait for the process to be gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await gone;
  }
}

/** Whether the log, from byte `from` on, says a port could not be bound (nats-server logs it, then exits). */
function portInUse(logFile: string, from: number): boolean {
  try {
    const fd = fs.openSync(logFile, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const buf = Buffer.alloc(Math.max(0, size - from));
      fs.readSync(fd, buf, 0, buf.length, from);
      return /address already in use/i.test(buf.toString('utf8'));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}

/**
 * Starts a single nats-server on a port from `pickPort`; when another process bound that port
 * between the pick and nats-server's own bind, starts again on a fresh one (at most `tries` times).
 */
export async function startOwnNats(storeDir: string, logFile: string, pickPort: () => Promise<number>, tries = PORT_CLASH_RETRIES, auth?: NatsServerAuth): Promise<OwnNatsServer> {
  for (let attempt = 1; ; attempt++) {
    const server = new OwnNatsServer(await pickPort(), storeDir, logFile, undefined, auth);
    try {
      await server.start();
      return server;
    } catch (e) {
      if (!(e instanceof PortInUseError) || attempt >= tries) throw e;
    }
  }
}

/**
 * A JetStream cluster of `nodes` servers on free localhost ports, each with its own store under dir
 * and its log file in logDir (dir unless given: a store holds event payloads, not log lines).
 */
export class NatsCluster {
  private constructor(
    /** The nodes; start() replaces them (same names, stores and logs, fresh ports) after a port clash. */
    readonly nodes: OwnNatsServer[],
    private readonly build: () => Promise<OwnNatsServer[]>,
  ) {}

  /**
   * The cluster's nodes on ports from `freePort`. nats-server cannot report a route port it chose
   * itself to its peers in advance, so the ports are picked here and start() picks again if one of
   * them was taken before nats-server bound it.
   */
  static async create(dir: string, nodes = 3, freePort: () => Promise<number>, logDir = dir, auth?: NatsServerAuth): Promise<NatsCluster> {
    const clusterName = `acct-${path.basename(dir).replace(/[^A-Za-z0-9-]/g, '')}`.slice(0, 32);
    const build = async () => {
      const ports = await distinctPorts(2 * nodes, freePort);
      const clusterPorts = ports.slice(nodes);
      return ports.slice(0, nodes).map(
        (port, i) =>
          new OwnNatsServer(
            port,
            path.join(dir, `n${i}`, 'jetstream'),
            path.join(logDir, `n${i}.log`),
            {
              name: `n${i}`,
              clusterName,
              clusterPort: clusterPorts[i]!,
              routes: clusterPorts.filter((_, j) => j !== i),
            },
            auth,
          ),
      );
    };
    return new NatsCluster(await build(), build);
  }

  /** Every node's URL, comma-separated (what NATS_URL takes). */
  get url(): string {
    return this.nodes.map((n) => n.url).join(',');
  }

  /**
   * Starts every node; resolves once JetStream answers on each (a meta leader is elected). When a
   * node exits because one of the picked ports was taken meanwhile, stops the others, empties the
   * stores of this first start and starts the whole cluster again on fresh ports (at most `tries`
   * times). A restart of a node after kill() (node.start()) keeps its ports.
   */
  async start(timeoutMs = 60_000, tries = PORT_CLASH_RETRIES): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      let failed = false;
      const results = await Promise.allSettled(
        this.nodes.map((n) =>
          n.start(timeoutMs).catch(async (e: unknown) => {
            // One node down: the others would wait for a quorum that may never come.
            if (!failed) {
              failed = true;
              await this.stop('SIGKILL');
            }
            throw e;
          }),
        ),
      );
      const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
      if (errors.length === 0) return;
      await this.stop('SIGKILL');
      const clash = errors.find((e) => e instanceof PortInUseError);
      if (!clash || attempt >= tries) throw clash ?? errors[0]!;
      for (const n of this.nodes) fs.rmSync(n.storeDir, { recursive: true, force: true });
      this.nodes.splice(0, this.nodes.length, ...(await this.build()));
    }
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.kill(signal)));
  }
}

/** `n` ports from `pick`, no two the same (a picker may hand out a port again once it is free). */
async function distinctPorts(n: number, pick: () => Promise<number>): Promise<number[]> {
  const ports = new Set<number>();
  for (let picks = 0; ports.size < n; picks++) {
    if (picks >= 20 * n) throw new Error(`no ${n} distinct ports after ${picks} picks`);
    ports.add(await pick());
  }
  return [...ports];
}

/** This start's last log lines, to go with an error (a CI run keeps its output, not the log). */
function lastLines(file: string, from: number): string {
  const tail = tailLines(file, 10, from);
  return tail.length ? `; its last lines:\n${tail.join('\n')}` : '';
}
