import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
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

/**
 * A NATS server with JetStream that belongs to this test alone: one port, one store dir, one log
 * file. kill() is kill -9; start() again runs it on the same port and store (a crash and restart).
 */
export class OwnNatsServer {
  private child?: ChildProcess;
  readonly url: string;

  constructor(
    readonly port: number,
    readonly storeDir: string,
    readonly logFile: string,
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
    const args = ['-js', '-a', '127.0.0.1', '-p', String(this.port), '-sd', this.storeDir, '-l', this.logFile];
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
