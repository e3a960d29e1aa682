import { manifestOf } from './manifest';

/**
 * The one catalogue of NATS subjects. Nothing else in the code base writes a subject string:
 * request/reply operations are named here and turned into subjects by rpcSubject(), and every
 * subject, queue group and stream name carries the configurable prefix (NATS_PREFIX, default acct)
 * so that several stacks can share one NATS server.
 */
import { RPC_CATALOGUE, type RpcCatalogue, type RpcOperation } from './rpc-catalogue';

import type { ServiceName } from './services';

export { SERVICES, type ServiceName } from './services';

/** Request/reply operations and the service that serves each, in its queue group (from RPC_CATALOGUE). */
export const RPC_OPERATIONS = Object.fromEntries(Object.entries(RPC_CATALOGUE).map(([op, def]) => [op, def.service])) as {
  readonly [K in RpcOperation]: RpcCatalogue[K]['service'];
};

export type { RpcOperation };

export function rpcSubject(prefix: string, op: RpcOperation): string {
  return `${prefix}.rpc.${RPC_OPERATIONS[op]}.${op}`;
}

/** Replicas of one service share its queue group, so each request reaches exactly one of them. */
export function queueGroup(prefix: string, service: ServiceName): string {
  const { queue } = manifestOf(service);
  if (!queue) throw new Error(`${service} serves no RPC operations`);
  return `${prefix}.${queue}`;
}

export function operationsOf(service: ServiceName): RpcOperation[] {
  return (Object.keys(RPC_OPERATIONS) as RpcOperation[]).filter((op) => RPC_OPERATIONS[op] === service);
}

/** NATS_PREFIX must be a token that is valid in subjects and in stream names. */
export const NATS_PREFIX_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

export { adminSubject } from './services';
/**
 * A progress message of reporting's rebuild, sent to the request's reply subject about once a second
 * when the request body is `{ "progress": true }` (then the final `{ ok, ... }` reply follows on the
 * same subject). applied and total are stream positions (events the consumer has acknowledged, the
 * stream's last); rate_per_s is the replay's average so far; eta_s null until it can be told;
 * timeout_ms the replica's REPORTING_REBUILD_TIMEOUT_MS, from which the CLI derives its own wait.
 */
export interface RebuildProgress {
  applied: number;
  total: number;
  rate_per_s: number;
  eta_s: number | null;
  elapsed_ms: number;
  timeout_ms: number;
}
