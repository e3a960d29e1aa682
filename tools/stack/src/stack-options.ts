import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { ServiceManifestEntry } from '@acct/contracts';
import type { LocalS3 } from './s3';

// The options of startStack and what it returns (stack.ts), apart so that StackProcesses can use them.

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
