import { createHash } from 'node:crypto';
import { canonicalJson } from '@acct/contracts';
import type { Orm } from '@acct/kit';

export { canonicalJson };

export type Begin = { kind: 'proceed' } | { kind: 'replay'; status: number; headers: Record<string, string>; body: string } | { kind: 'mismatch' } | { kind: 'in_flight' };

/**
 * A request still marked in flight after this long is taken to have died with its gateway (kill -9,
 * node loss): its key is free for a retry. A live request cannot take longer than the RPC timeout
 * plus two round trips to Postgres, so the gateway passes a bound derived from RPC_TIMEOUT_MS.
 */
export const DEFAULT_STALE_IN_FLIGHT_SECONDS = 120;

export function fingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method}\n${path}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
}

/** Idempotency-Key records of API-DECISIONS §2, in the gateway's schema. */
export class IdempotencyStore {
  constructor(
    private readonly orm: Orm,
    private readonly ttlSeconds: number,
    private readonly staleInFlightSeconds = DEFAULT_STALE_IN_FLIGHT_SECONDS,
  ) {}

  private get conn() {
    return this.orm.em.getConnection();
  }

  async begin(apiKeyId: string, key: string, fp: string): Promise<Begin> {
    // Claim the key, or take over a record that expired or whose request died in flight.
    const claimed = await this.conn.execute(
      `INSERT INTO idempotency_keys (api_key_id, key, fingerprint, state, created_at, expires_at)
       VALUES (?, ?, ?, 'in_flight', now(), now() + make_interval(secs => ?))
       ON CONFLICT (api_key_id, key) DO UPDATE
          SET fingerprint = EXCLUDED.fingerprint, state = 'in_flight', response_status = NULL,
              response_headers = NULL, response_body = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
        WHERE idempotency_keys.expires_at < now()
           OR (idempotency_keys.state = 'in_flight' AND idempotency_keys.created_at < now() - make_interval(secs => ?))
       RETURNING 1`,
      [apiKeyId, key, fp, this.ttlSeconds, this.staleInFlightSeconds],
    );
    if (claimed.length) return { kind: 'proceed' };
    const rows: Array<{ fingerprint: string; state: string; response_status: number; response_headers: Record<string, string>; response_body: string }> = await this.conn.execute(
      `SELECT fingerprint, state, response_status, response_headers, response_body
           FROM idempotency_keys WHERE api_key_id = ? AND key = ?`,
      [apiKeyId, key],
    );
    const row = rows[0];
    if (!row) return this.begin(apiKeyId, key, fp); // deleted between the two statements
    if (row.fingerprint !== fp) return { kind: 'mismatch' };
    if (row.state === 'in_flight') return { kind: 'in_flight' };
    return { kind: 'replay', status: row.response_status, headers: row.response_headers ?? {}, body: row.response_body };
  }

  async complete(apiKeyId: string, key: string, status: number, headers: Record<string, string>, body: string): Promise<void> {
    await this.conn.execute(
      `UPDATE idempotency_keys SET state = 'completed', response_status = ?, response_headers = ?, response_body = ?
        WHERE api_key_id = ? AND key = ?`,
      [status, JSON.stringify(headers), body, apiKeyId, key],
    );
  }

  /** A failure worth retrying (5xx) must not be replayed: forget the key. */
  async release(apiKeyId: string, key: string): Promise<void> {
    await this.conn.execute(`DELETE FROM idempotency_keys WHERE api_key_id = ? AND key = ?`, [apiKeyId, key]);
  }

  async purgeExpired(batch = 1000): Promise<number> {
    const res = await this.conn.execute(`DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at < now() LIMIT ?) RETURNING 1`, [batch]);
    return res.length;
  }
}
