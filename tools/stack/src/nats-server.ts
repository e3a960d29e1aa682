import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { connect } from 'nats';

/** The nats-server binary: NATS_SERVER_BIN, else the one on PATH, else the Debian package's. */
export function natsServerBin(): string {
  if (process.env.NATS_SERVER_BIN) return process.env.NATS_SERVER_BIN;
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const p = `${dir}/nats-server`;
    if (dir && fs.existsSync(p)) return p;
  }
  return '/usr/sbin/nats-server';
}

/** Membership of a node in a NATS cluster: its own route port, the others' and the cluster's name. */
export interface NatsClusterMember {
  name: string;
  clusterName: string;
  clusterPort: number;
  routes: number[];
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
  ) {
    this.url = `nats://127.0.0.1:${port}`;
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
    const c = this.cluster;
    if (c) {
      args.push('-n', c.name, '--cluster_name', c.clusterName, '--cluster', `nats://127.0.0.1:${c.clusterPort}`);
      args.push('--routes', c.routes.map((p) => `nats://127.0.0.1:${p}`).join(','));
    }
    const child = spawn(natsServerBin(), args, { stdio: 'ignore' });
    this.child = child;
    let exited: string | undefined;
    child.once('exit', (code, signal) => (exited = `code ${code}, signal ${signal}`));
    child.once('error', (e) => (exited = String(e)));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (exited) {
        this.child = undefined;
        throw new Error(`nats-server exited before it was ready (${exited}); see ${this.logFile}`);
      }
      try {
        const nc = await connect({
          servers: this.url,
          reconnect: false,
          timeout: 1000,
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
      if (Date.now() > deadline) throw new Error(`nats-server was not ready within ${timeoutMs} ms; see ${this.logFile}`);
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

/**
 * A JetStream cluster of `nodes` servers on free localhost ports, each with its own store under dir
 * and its log file in logDir (dir unless given: a store holds event payloads, not log lines).
 */
export class NatsCluster {
  constructor(readonly nodes: OwnNatsServer[]) {}

  static async create(dir: string, nodes = 3, freePort: () => Promise<number>, logDir = dir): Promise<NatsCluster> {
    const ports = await Promise.all(Array.from({ length: nodes }, () => freePort()));
    const clusterPorts = await Promise.all(Array.from({ length: nodes }, () => freePort()));
    const clusterName = `acct-${path.basename(dir).replace(/[^A-Za-z0-9-]/g, '')}`.slice(0, 32);
    return new NatsCluster(
      ports.map(
        (port, i) =>
          new OwnNatsServer(port, path.join(dir, `n${i}`, 'jetstream'), path.join(logDir, `n${i}.log`), {
            name: `n${i}`,
            clusterName,
            clusterPort: clusterPorts[i]!,
            routes: clusterPorts.filter((_, j) => j !== i),
          }),
      ),
    );
  }

  /** Every node's URL, comma-separated (what NATS_URL takes). */
  get url(): string {
    return this.nodes.map((n) => n.url).join(',');
  }

  /** Starts every node; resolves once JetStream answers on each (a meta leader is elected). */
  async start(timeoutMs = 60_000): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.start(timeoutMs)));
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.kill('SIGTERM')));
  }
}
