import { NatsError } from 'nats';
import type { Logger } from './logger';

/**
 * How long a setup call of JetStream's API (a stream or durable consumer made or looked up at
 * start) is tried again. On a cluster, making a replicated consumer waits for its group to elect a
 * leader, and a loaded node answers late: such a call can time out (the client's bound is 5 s) or
 * find no leader yet, although a moment later it succeeds.
 */
export const JETSTREAM_SETUP_DEADLINE_MS = 60_000;

/**
 * A refusal that asking again cannot change: a request JetStream calls bad (400: a config that
 * clashes, ...), or one the bus refuses this process's user (a permissions violation, an
 * authorization error: a NATS user whose rights lack the JetStream API).
 */
export function isPermanentJetStreamError(e: unknown): boolean {
  return e instanceof NatsError && (e.api_error?.code === 400 || e.isPermissionError() || e.isAuthError());
}

/**
 * `fn` until it succeeds, a permanent refusal (isPermanentJetStreamError), or the deadline: waits 100 ms, then twice as long
 * each time (at most 2 s) between tries, logging each failure.
 */
export async function retryJetStreamSetup<T>(
  what: string,
  fn: () => Promise<T>,
  opts: { log?: Logger; deadlineMs?: number; sleep?: (ms: number) => Promise<void> } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.deadlineMs ?? JETSTREAM_SETUP_DEADLINE_MS);
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let attempt = 1, delay = 100; ; attempt++, delay = Math.min(2 * delay, 2000)) {
    try {
      return await fn();
    } catch (err) {
      if (isPermanentJetStreamError(err) || Date.now() + delay > deadline) throw err;
      opts.log?.warn({ err, attempt, retry_in_ms: delay }, `${what} failed; trying again`);
      await sleep(delay);
    }
  }
}
