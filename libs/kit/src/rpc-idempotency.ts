import { AppError, type RpcReply, type RpcRequest, type TrustedContext } from '@acct/contracts';
import { type MigrationDef, type Orm, ddlMigration } from './db';
import type { Logger } from './logger';

/**
 * Version 1 of the Idempotency-Key table every service keeps in its own schema. FROZEN: change it
 * by adding a version, never by editing this text.
 */
const RPC_IDEMPOTENCY_DDL_V1 = `
  CREATE TABLE rpc_idempotency (
    api_key_id text NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    operation text NOT NULL,
    state text NOT NULL CHECK (state IN ('in_flight', 'completed')),
    reply jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (api_key_id, key)
  );
  CREATE INDEX rpc_idempotency_expires ON rpc_idempotency (expires_at);
`;

/** The migration that creates the table; every service that serves keyed writes appends it to its list. */
export const RPC_IDEMPOTENCY_MIGRATION: MigrationDef = { name: 'Kit_RpcIdempotency_v1', class: ddlMigration(RPC_IDEMPOTENCY_DDL_V1) };

/** How long a key's first answer is kept (API-DECISIONS §2: 24 hours). */
export const DEFAULT_KEY_TTL_SECONDS = 86_400;

/**
 * A key still in flight after this long is taken to have died with its service process (kill -9
 * between the claim and the answer): a retry may run the request again. Far longer than any
 * handler runs, so that a live request is never run twice.
 */
export const DEFAULT_KEY_STALE_SECONDS = 60;

/** How many answers a process keeps in memory while their write waits for the database (keepLater). */
const UNKEPT_MAX = 10_000;

/** What a keyed request finds: run it, its first answer, a different request under the key, or the first still running. */
export type KeyClaim = { kind: 'proceed' } | { kind: 'replay'; reply: RpcReply } | { kind: 'mismatch' } | { kind: 'in_flight' };

/** The Idempotency-Key of a request, as the gateway forwards it for a keyed POST or PATCH. */
export interface RequestKey {
  apiKeyId: string;
  key: string;
  fingerprint: string;
}

/** The key of a request that carries one with its fingerprint (the gateway sends both for a keyed write); else null. */
export function requestKeyOf(ctx: Partial<TrustedContext> | undefined): RequestKey | null {
  if (!ctx?.apiKeyId || !ctx.idempotencyKey || !ctx.idempotencyFingerprint) return null;
  return { apiKeyId: ctx.apiKeyId, key: ctx.idempotencyKey, fingerprint: ctx.idempotencyFingerprint };
}

/**
 * A service's record of the Idempotency-Keys it served (API-DECISIONS §2): the service that makes
 * the effect answers for its key, so that an effect it committed replays its first answer whatever
 * happened to the gateway that asked (killed before replying, its own database gone). Concurrent
 * requests with one key serialize on the table's primary key: the first claims it, the others
 * get `in_flight` until its answer is kept.
 */
export class RpcIdempotency {
  constructor(
    private readonly orm: Orm,
    private readonly ttlSeconds = DEFAULT_KEY_TTL_SECONDS,
    private readonly staleSeconds = DEFAULT_KEY_STALE_SECONDS,
  ) {}

  private get conn() {
    return this.orm.em.getConnection();
  }

  /** Claims the key for this request, or says what the first request under it left. */
  async claim(k: RequestKey, operation: string): Promise<KeyClaim> {
    // A record that expired, or whose request died in flight, is taken over (the latter only by the same request).
    const claimed = await this.conn.execute(
      `INSERT INTO rpc_idempotency (api_key_id, key, fingerprint, operation, state, expires_at)
       VALUES (?, ?, ?, ?, 'in_flight', now() + make_interval(secs => ?))
       ON CONFLICT (api_key_id, key) DO UPDATE
          SET fingerprint = EXCLUDED.fingerprint, operation = EXCLUDED.operation, state = 'in_flight', reply = NULL,
              created_at = now(), expires_at = EXCLUDED.expires_at
        WHERE rpc_idempotency.expires_at < now()
           OR (rpc_idempotency.state = 'in_flight' AND rpc_idempotency.fingerprint = EXCLUDED.fingerprint
               AND rpc_idempotency.created_at < now() - make_interval(secs => ?))
       RETURNING 1`,
      [k.apiKeyId, k.key, k.fingerprint, operation, this.ttlSeconds, this.staleSeconds],
    );
    if (claimed.length) return { kind: 'proceed' };
    const rows: Array<{ fingerprint: string; state: string; reply: RpcReply | null }> = await this.conn.execute(
      `SELECT fingerprint, state, reply FROM rpc_idempotency WHERE api_key_id = ? AND key = ?`,
      [k.apiKeyId, k.key],
    );
    const row = rows[0];
    if (!row) return this.claim(k, operation); // purged between the two statements
    if (row.fingerprint !== k.fingerprint) return { kind: 'mismatch' };
    if (row.state !== 'completed' || !row.reply) return { kind: 'in_flight' };
    return { kind: 'replay', reply: row.reply };
  }

  /** Keeps the first answer under the key. */
  async complete(k: RequestKey, reply: RpcReply): Promise<void> {
    await this.conn.execute(`UPDATE rpc_idempotency SET state = 'completed', reply = ? WHERE api_key_id = ? AND key = ? AND state = 'in_flight'`, [
      JSON.stringify(reply),
      k.apiKeyId,
      k.key,
    ]);
  }

  /**
   * Keeps an answer whose first write failed (the database went away between the effect's commit
   * and the write): tried again, 250 ms doubling to 5 s, until it is kept or its key expired, so
   * that a retry after the outage replays it instead of running again. Meanwhile this process
   * replays it from memory (`unkept`); at most UNKEPT_MAX answers wait, the oldest is dropped.
   */
  keepLater(k: RequestKey, reply: RpcReply): void {
    const id = `${k.apiKeyId}\n${k.key}`;
    if (!this.waiting.has(id) && this.waiting.size >= UNKEPT_MAX) this.waiting.delete(this.waiting.keys().next().value!);
    this.waiting.set(id, { key: k, reply, until: Date.now() + this.ttlSeconds * 1000 });
    const attempt = (delay: number) => {
      setTimeout(() => {
        const w = this.waiting.get(id);
        if (!w || w.reply !== reply) return;
        this.complete(k, reply).then(
          () => this.waiting.delete(id),
          () => (Date.now() > w.until ? this.waiting.delete(id) : attempt(Math.min(delay * 2, 5000))),
        );
      }, delay).unref();
    };
    attempt(250);
  }

  /** The answer of the key this process has not kept yet (keepLater), when the request is the same. */
  unkept(k: RequestKey): RpcReply | undefined {
    const w = this.waiting.get(`${k.apiKeyId}\n${k.key}`);
    return w && w.key.fingerprint === k.fingerprint ? w.reply : undefined;
  }

  private readonly waiting = new Map<string, { key: RequestKey; reply: RpcReply; until: number }>();

  /** A failure worth retrying (503, 500) is not kept: the key is free again. */
  async release(k: RequestKey): Promise<void> {
    await this.conn.execute(`DELETE FROM rpc_idempotency WHERE api_key_id = ? AND key = ? AND state = 'in_flight'`, [k.apiKeyId, k.key]);
  }

  async purgeExpired(batch = 1000): Promise<number> {
    const res = await this.conn.execute(`DELETE FROM rpc_idempotency WHERE ctid IN (SELECT ctid FROM rpc_idempotency WHERE expires_at < now() LIMIT ?) RETURNING 1`, [batch]);
    return res.length;
  }
}

/**
 * A request under an Idempotency-Key (API-DECISIONS §2): the first one with the key runs (`run`,
 * which answers its failures as replies) and its answer is kept, except a 5xx (the key is free
 * again); a repeat gets that answer (keyReplayed); the same key with another request is 409, and a
 * repeat while the first runs 409 in_flight. `unrecorded`: the answer could not be kept yet (it still goes
 * out, and is kept once the database answers again: keepLater).
 */
export async function answerOnce(
  keys: RpcIdempotency,
  key: RequestKey,
  operation: string,
  o: { run: () => Promise<RpcReply>; unrecorded: (err: unknown) => void },
): Promise<RpcReply> {
  const claim = await keys.claim(key, operation);
  if (claim.kind === 'mismatch') {
    throw AppError.conflict('This Idempotency-Key was already used with a different method, path or body.', [
      { field: 'Idempotency-Key', issue: 'reused_with_different_request', message: 'Use a new key for a different request.' },
    ]);
  }
  const unkept = claim.kind === 'in_flight' ? keys.unkept(key) : undefined;
  if (unkept) return { ...unkept, keyReplayed: true };
  if (claim.kind === 'in_flight') {
    throw AppError.conflict('A request with this Idempotency-Key is still being processed; retry shortly.', [
      { field: 'Idempotency-Key', issue: 'in_flight', message: 'The first request has not finished.' },
    ]);
  }
  if (claim.kind === 'replay') return { ...claim.reply, keyReplayed: true };
  const reply = await o.run();
  const retryable = !reply.ok && (reply.error.code === 'internal_error' || reply.error.code === 'service_unavailable');
  try {
    if (retryable) await keys.release(key);
    else await keys.complete(key, reply);
  } catch (err) {
    // The work is done: its answer goes out, and is kept once the database is back. (A 5xx whose
    // release failed stays in flight until it goes stale.)
    o.unrecorded(err);
    if (!retryable) keys.keepLater(key, reply);
  }
  return reply;
}

/**
 * The RPC server's keyed path: a request that carries its Idempotency-Key and fingerprint (the
 * gateway's keyed POST or PATCH), to a service that keeps keys, is answered once (answerOnce), its
 * handler's throw made a reply by `failure` so that the answer kept is the one sent; any other
 * request runs as it is (its throw left to the caller).
 */
export function answerKeyed(
  keys: RpcIdempotency | undefined,
  op: string,
  req: RpcRequest,
  o: { run: () => Promise<RpcReply>; failure: (e: unknown) => RpcReply; log: Logger },
): Promise<RpcReply> {
  const key = keys ? requestKeyOf(req.ctx) : null;
  if (!keys || !key) return o.run();
  return answerOnce(keys, key, op, {
    run: () => o.run().catch(o.failure),
    unrecorded: (err) => o.log.warn({ err, op, request_id: req.ctx.requestId }, 'could not record the Idempotency-Key answer'),
  });
}
