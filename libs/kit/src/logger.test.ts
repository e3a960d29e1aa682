import { REDACT_PATHS, createLogger } from './logger';

/** A logger writing into an array, one parsed JSON object per line. */
function capture(level = 'info') {
  const lines: string[] = [];
  const log = createLogger('svc-under-test', level, { write: (s: string) => void lines.push(s) });
  const records = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const raw = () => lines.join('');
  return { log, records, raw };
}

const SECRET = 'svc_test_S3cr3tValueThatMustNeverBeLogged0001';

describe('createLogger', () => {
  it('writes JSON lines carrying the service name, level label and message', () => {
    const { log, records } = capture();
    log.info({ n: 1 }, 'hello');
    const [r] = records();
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
    const { log, records, raw } = capture();
    log.info({ authorization: `Bearer ${SECRET}` }, 'x');
    expect(records()[0].authorization).toBe('[redacted]');
    expect(raw()).not.toContain(SECRET);
  });

  it('censors authorization in headers, at the top level and inside a request', () => {
    const { log, records, raw } = capture();
    log.info({ headers: { authorization: `Bearer ${SECRET}`, accept: 'application/json' } }, 'top');
    log.info({ req: { method: 'GET', headers: { authorization: `Bearer ${SECRET}` } } }, 'nested');
    const [top, nested] = records() as Array<Record<string, any>>;
    expect(top.headers.authorization).toBe('[redacted]');
    expect(top.headers.accept).toBe('application/json');
    expect(nested.req.headers.authorization).toBe('[redacted]');
    expect(nested.req.method).toBe('GET');
    expect(raw()).not.toContain(SECRET);
  });

  it('censors Authorization spelled with a capital letter', () => {
    const { log, records, raw } = capture();
    log.info({ Authorization: `Bearer ${SECRET}` }, 'x');
    expect(records()[0].Authorization).toBe('[redacted]');
    expect(raw()).not.toContain(SECRET);
  });

  it.each(['key', 'api_key', 'secret', 'test_key', 'live_key', 'password', 'token'])(
    'censors %s at the top level and one level down',
    (field) => {
      const { log, records, raw } = capture();
      log.info({ [field]: SECRET, other: 'visible' }, 'top');
      log.info({ payload: { [field]: SECRET, other: 'visible' } }, 'nested');
      const [top, nested] = records() as Array<Record<string, any>>;
      expect(top[field]).toBe('[redacted]');
      expect(top.other).toBe('visible');
      expect(nested.payload[field]).toBe('[redacted]');
      expect(nested.payload.other).toBe('visible');
      expect(raw()).not.toContain(SECRET);
    },
  );

  it('censors a bootstrap result with both keys', () => {
    const { log, raw, records } = capture();
    log.info({ result: { organization_id: 'o', test_key: `${SECRET}T`, live_key: `${SECRET}L` } }, 'bootstrap');
    expect((records()[0].result as Record<string, unknown>).organization_id).toBe('o');
    expect(raw()).not.toContain(SECRET);
  });

  it('does not alter the object that was logged', () => {
    const { log } = capture();
    const obj = { key: SECRET, headers: { authorization: SECRET } };
    log.info(obj, 'x');
    expect(obj).toEqual({ key: SECRET, headers: { authorization: SECRET } });
  });

  it('child loggers keep the service name and the redaction', () => {
    const { log, records, raw } = capture();
    log.child({ request_id: 'r1' }).info({ api_key: SECRET }, 'child');
    const [r] = records();
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
    const log = createLogger('svc', 'info', { write: (s: string) => lines.push(s) } as never);
    log.info({ err: { config: { headers: { authorization: 'Bearer svc_live_deep' } } }, a: { b: { key: 'deepkey' } }, req: { headers: { Authorization: 'Bearer caps' } } }, 'x');
    const out = lines.join('');
    expect(out).not.toContain('svc_live_deep');
    expect(out).not.toContain('deepkey');
    expect(out).not.toContain('Bearer caps');
  });
});
