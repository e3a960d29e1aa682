import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { type E2E, type Keys, bootstrapOrg, client, startE2E } from './harness';

/**
 * API-DECISIONS §2: an effect that committed replays its first answer to a retry with the same
 * Idempotency-Key, whatever happened to the gateway that asked: killed after the service answered
 * and before it replied, or unable to write its own record of the answer (its database gone for
 * that write). A trigger on the gateway's idempotency_keys table stands for both: it holds the
 * gateway's write of the answer (the service has committed and replied by then) until the test
 * kills the gateway, or makes the write fail.
 */
describe('e2e: Idempotency-Key after the gateway dies between the commit and the reply', () => {
  let e2e: E2E;
  let keys: Keys;
  let pg: Client;
  /** The gateway that serves now (a restarted single gateway may listen on another port). */
  const base = () => (e2e.stack.gatewayUrls().length > 1 ? e2e.base : e2e.stack.gatewayUrls()[0]!);
  const api = () => client(base(), keys.test_key);

  beforeAll(async () => {
    e2e = await startE2E();
    keys = await bootstrapOrg(e2e.databaseUrl);
    pg = new Client({ connectionString: e2e.databaseUrl });
    await pg.connect();
    // Keys named hold-*: the gateway's write of the answer waits for advisory lock 4242, then fails.
    // Keys named fail-*: it fails at once, as when the gateway's database is gone.
    await pg.query(`
      CREATE FUNCTION gateway.e2e_fail_answer_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.state = 'completed' AND NEW.key LIKE 'hold-%' THEN PERFORM pg_advisory_lock(4242); END IF;
        IF NEW.state = 'completed' AND (NEW.key LIKE 'hold-%' OR NEW.key LIKE 'fail-%') THEN
          RAISE EXCEPTION 'the gateway database is unavailable (e2e)';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER e2e_fail_answer_write BEFORE UPDATE ON gateway.idempotency_keys
        FOR EACH ROW EXECUTE FUNCTION gateway.e2e_fail_answer_write();`);
  });
  afterAll(async () => {
    await pg?.end();
    await e2e?.stop();
  });

  const customer = () => ({ external_customer_id: `ext-${randomUUID()}`, name: 'Crash Test Ltd' });
  const customersWith = async (external: string) =>
    (await pg.query<{ n: string }>('SELECT count(*) AS n FROM receivables.customers WHERE external_customer_id = $1', [external])).rows[0]!.n;

  /** Waits until a gateway backend waits on advisory lock 4242 (its write of the answer held); its pid. */
  async function heldWrite(deadline = Date.now() + 30_000): Promise<number> {
    for (;;) {
      const { rows } = await pg.query<{ pid: number }>(
        `SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' AND NOT l.granted AND l.objid = 4242 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      if (rows[0]) return rows[0].pid;
      if (Date.now() > deadline) throw new Error('the gateway never reached its write of the answer');
      await new Promise((r) => setImmediate(r));
    }
  }

  it('replays the first answer (201, same body) after the gateway was killed before replying', async () => {
    const key = `hold-${randomUUID()}`;
    const body = customer();
    await pg.query('SELECT pg_advisory_lock(4242)');
    const lost = api()('POST', '/api/v1/customers', body, { 'Idempotency-Key': key }).then(
      () => 'answered',
      () => 'no answer',
    );
    const pid = await heldWrite();
    // The service committed and answered; the gateway dies before its reply leaves.
    await e2e.stack.stopService('gateway', 'SIGKILL');
    await pg.query('SELECT pg_terminate_backend($1)', [pid]);
    await pg.query('SELECT pg_advisory_unlock(4242)');
    expect(await lost).toBe('no answer');
    expect(await customersWith(body.external_customer_id)).toBe('1');

    await e2e.stack.startService('gateway');
    const retry = await api()('POST', '/api/v1/customers', body, { 'Idempotency-Key': key });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const id = retry.json.data.id as string;
    const now = await api()('GET', `/api/v1/customers/${id}`);
    expect(retry.json).toEqual(now.json); // the first answer: the record as it was created
    expect(await customersWith(body.external_customer_id)).toBe('1');
  });

  it('replays the first answer when the gateway could not record it, and refuses the key with another body', async () => {
    const key = `fail-${randomUUID()}`;
    const body = customer();
    const first = await api()('POST', '/api/v1/customers', body, { 'Idempotency-Key': key });
    expect(first.status).toBe(201);
    const again = await api()('POST', '/api/v1/customers', body, { 'Idempotency-Key': key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toEqual(first.json);
    expect(await customersWith(body.external_customer_id)).toBe('1');
    const other = await api()('POST', '/api/v1/customers', customer(), { 'Idempotency-Key': key });
    expect(other.status).toBe(409);
    expect(other.json.error.details[0].issue).toBe('reused_with_different_request');
  });
});
