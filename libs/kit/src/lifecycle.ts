import type { Logger } from './logger';
import { ConfigError } from './config';

export interface ShutdownStep {
  name: string;
  run: () => void | Promise<void>;
}

/**
 * On SIGTERM or SIGINT run the steps in order (stop taking work, drain NATS, finish in-flight
 * requests, close the pool), then exit 0; if that takes longer than timeoutMs, exit 1. A process
 * started with an IPC channel (tools/stack) also shuts down when that channel goes: the process
 * that started it is gone (killed, crashed) and nothing would ever stop this one.
 */
export function installShutdown(log: Logger, steps: ShutdownStep[], timeoutMs: number): (signal?: string) => Promise<void> {
  let started = false;
  const shutdown = async (signal = 'shutdown') => {
    if (started) return;
    started = true;
    const began = Date.now();
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      log.error({ timeout_ms: timeoutMs }, 'shutdown timed out; exiting');
      process.exit(1);
    }, timeoutMs);
    force.unref();
    for (const step of steps) {
      try {
        await step.run();
        log.debug({ step: step.name }, 'shutdown step done');
      } catch (err) {
        log.error({ err, step: step.name }, 'shutdown step failed');
      }
    }
    log.info({ ms: Date.now() - began }, 'stopped');
    clearTimeout(force);
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  if (process.connected) process.once('disconnect', () => void shutdown('parent gone'));
  return shutdown;
}

/** Runs a process's main(); a ConfigError prints each bad variable and exits 2. */
export function runMain(main: () => Promise<void>): void {
  main().catch((err) => {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
