import { REDACT_PATHS, createLogger, driverMessage, unredacted } from './logger';

/** A logger writing into an array, one parsed JSON object per line. */
function capture(level = 'info') {
  const lines: string[] = [];
  const log = createLogger('svc-under-test', level, { write: (s: string) => void lines.push(s) });
  const records = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const raw = () => lines.join('');
  /** The i-th record; throws (failing the test) when fewer were written. */
  const record = (i: number): Record<string, any> => {
    const r = records()[i];
    if (!r) throw new Error(`log record #${i} missing: ${lines.length} written`);
    return r;
  };
  return { log, records, record, raw };
}

const SECRET = 'svc_test_S3cr3tValueThatMustNeverBeLogged0001';

describe('createLogger', () => {
  it('writes JSON lines carrying the service name, level label and message', () => {
    const { log, record } = capture();
    log.info({ n: 1 }, 'hello');
    const r = record(0);
    expect(r.service).toBe('svc-under-test');
    expect(r.level).toBe('info');
    expect(r.msg).toBe('hello');
    expect(r.n).toBe(1);
    expect(typeof r.time).toBe('string');
  });

  it('respects the level', () => {
    const { log, records } = capture('warn');
    log.info('dropped');
    log.warn('kept');
    expect(records().map((r) => r.msg)).toEqual(['kept']);
  });

  it('censors a top-level authorization', () => {
    const { log, record, raw } = capture();
    log.info({ authorization: `Bearer ${SECRET}` }, 'x');
    expect(record(0).authorization).toBe('[redacted]');
    expect(raw()).not.toContain(SECRET);
  });

  it('censors authorization in headers, at the top level and inside a request', () => {
    const { log, record, raw } = capture();
    log.info({ headers: { authorization: `Bearer ${SECRET}`, accept: 'application/json' } }, 'top');
    log.info({ req: { method: 'GET', headers: { authorization: `Bearer ${SECRET}` } } }, 'nested');
    const [top, nested] = [record(0), record(1)];
    expect(top.headers.authorization).toBe('[redacted]');
    expect(top.headers.accept).toBe('application/json');
    expect(nested.req.headers.authorization).toBe('[redacted]');
    expect(nested.req.method).toBe('GET');
    expect(raw()).not.toContain(SECRET);
  });

  it('censors Authorization spelled with a capital letter', () => {
    const { log, record, raw } = capture();
    log.info({ Authorization: `Bearer ${SECRET}` }, 'x');
    expect(record(0).Authorization).toBe('[redacted]');
    expect(raw()).not.toContain(SECRET);
  });

  it.each(['key', 'api_key', 'secret', 'test_key', 'live_key', 'password', 'token'])('censors %s at the top level and one level down', (field) => {
    const { log, record, raw } = capture();
    log.info({ [field]: SECRET, other: 'visible' }, 'top');
    log.info({ payload: { [field]: SECRET, other: 'visible' } }, 'nested');
    const [top, nested] = [record(0), record(1)];
    expect(top[field]).toBe('[redacted]');
    expect(top.other).toBe('visible');
    expect(nested.payload[field]).toBe('[redacted]');
    expect(nested.payload.other).toBe('visible');
    expect(raw()).not.toContain(SECRET);
  });

  it('censors a bootstrap result with both keys', () => {
    const { log, raw, record } = capture();
    log.info({ result: { organization_id: 'o', test_key: `${SECRET}T`, live_key: `${SECRET}L` } }, 'bootstrap');
    expect(record(0).result.organization_id).toBe('o');
    expect(raw()).not.toContain(SECRET);
  });

  it('does not alter the object that was logged', () => {
    const { log } = capture();
    const obj = { key: SECRET, headers: { authorization: SECRET } };
    log.info(obj, 'x');
    expect(obj).toEqual({ key: SECRET, headers: { authorization: SECRET } });
  });

  it('child loggers keep the service name and the redaction', () => {
    const { log, record, raw } = capture();
    log.child({ request_id: 'r1' }).info({ api_key: SECRET }, 'child');
    const r = record(0);
    expect(r.service).toBe('svc-under-test');
    expect(r.request_id).toBe('r1');
    expect(r.api_key).toBe('[redacted]');
    expect(raw()).not.toContain(SECRET);
  });

  it('lists every credential-bearing field name in REDACT_PATHS', () => {
    for (const f of ['authorization', 'key', 'api_key', 'secret', 'test_key', 'live_key', 'password']) {
      expect(REDACT_PATHS).toContain(f);
    }
  });
});

describe('deep redaction', () => {
  it('censors credentials nested in HTTP client errors and deep objects', () => {
    const lines: string[] = [];
    const log = createLogger('svc', 'info', { write: (s: string) => lines.push(s) });
    log.info({ err: { config: { headers: { authorization: 'Bearer svc_live_deep' } } }, a: { b: { key: 'deepkey' } }, req: { headers: { Authorization: 'Bearer caps' } } }, 'x');
    const out = lines.join('');
    expect(out).not.toContain('svc_live_deep');
    expect(out).not.toContain('deepkey');
    expect(out).not.toContain('Bearer caps');
  });
});

describe('unredacted', () => {
  it('writes the line the logger writes when there is nothing to redact, and skips redaction', () => {
    const { log, raw } = capture();
    const fields = { request_id: 'r-1', method: 'GET', route: '/x/{id}', status: 200, duration_ms: 1.5, api_key_id: 'k-1' };
    log.info(fields, 'request');
    unredacted(log).info(fields, 'request');
    const [a, b] = raw()
      .split('\n')
      .filter(Boolean)
      .map((l) => l.replace(/"time":"[^"]*"/, ''));
    expect(b).toBe(a);
    // Only for lines whose fields are known: a credential's name is not looked for.
    unredacted(log).info({ password: 'x' }, 'p');
    expect(raw()).toContain('"password":"x"');
  });
});

describe('driverMessage', () => {
  it("keeps no value of a statement knex put before a connection error, nor Postgres' quoted input", () => {
    const line = driverMessage(
      "Connection Error: Error: INSERT INTO customers (id, name, email, metadata) VALUES ('228d4c34', 'O''Brien', 'ann@example.com', '{\"k\":\"v\"}') - Connection terminated unexpectedly",
    );
    expect(line).toBe("Connection Error: Error: INSERT INTO customers (id, name, email, metadata) VALUES ('…', '…', '…', '…') - Connection terminated unexpectedly");
    expect(driverMessage('duplicate key: Key (email)=(ann@example.com) already exists')).toBe('duplicate key: Key (…) already exists');
    expect(driverMessage('invalid input syntax for type uuid: "ann@example.com"')).toBe('invalid input syntax for type uuid: "…"');
    expect(driverMessage("VALUES ('ann@example.com")).not.toContain('ann@');
  });
});
