import { ConfigError, LOG_LEVELS, baseConfigSpec, natsAuthSpec, databaseUrlOf, databaseUrlVarOf, describeConfig, loadConfig, v } from './config';

/** Runs loadConfig expecting a ConfigError and returns it. */
function configError(spec: Parameters<typeof loadConfig>[0], env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(spec, env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected loadConfig to throw a ConfigError');
}

const spec = {
  COUNT: v.int(7, 'a count', 1, 100),
  PORT: v.port(8080, 'a port'),
  DB: v.url('postgres://localhost/db', 'a database url', ['postgres', 'postgresql']),
  MODE: v.oneOf(['soft', 'hard'] as const, 'soft', 'a mode'),
  FLAG: v.bool(false, 'a flag'),
  PREFIX: v.str('acct', 'a prefix', { pattern: /^[a-z]{1,8}$/ }),
};

describe('loadConfig', () => {
  it('applies every default when the variables are unset', () => {
    expect(loadConfig(spec, {})).toEqual({
      COUNT: 7,
      PORT: 8080,
      DB: 'postgres://localhost/db',
      MODE: 'soft',
      FLAG: false,
      PREFIX: 'acct',
    });
  });

  it('treats an empty string as unset and applies the default', () => {
    const env = { COUNT: '', PORT: '', DB: '', MODE: '', FLAG: '', PREFIX: '' };
    expect(loadConfig(spec, env)).toEqual(loadConfig(spec, {}));
  });

  it('parses valid values of every kind', () => {
    const out = loadConfig(spec, {
      COUNT: '42',
      PORT: '0',
      DB: 'postgresql://user@db.internal:5433/acct',
      MODE: 'hard',
      FLAG: 'true',
      PREFIX: 'abc',
    });
    expect(out).toEqual({
      COUNT: 42,
      PORT: 0,
      DB: 'postgresql://user@db.internal:5433/acct',
      MODE: 'hard',
      FLAG: true,
      PREFIX: 'abc',
    });
    expect(typeof out.COUNT).toBe('number');
  });

  it('accepts the range bounds of int and port', () => {
    expect(loadConfig(spec, { COUNT: '1', PORT: '65535' })).toMatchObject({ COUNT: 1, PORT: 65535 });
    expect(loadConfig(spec, { COUNT: '100' }).COUNT).toBe(100);
  });

  it.each([
    ['true', true],
    ['1', true],
    ['yes', true],
    ['false', false],
    ['0', false],
    ['no', false],
  ])('parses bool %p as %p', (raw, expected) => {
    expect(loadConfig({ FLAG: v.bool(!expected, 'a flag') }, { FLAG: raw }).FLAG).toBe(expected);
  });

  it.each([
    ['COUNT', 'abc'],
    ['COUNT', '1.5'],
    ['COUNT', '0'],
    ['COUNT', '101'],
    ['PORT', '65536'],
    ['PORT', '-1'],
    ['DB', 'not a url'],
    ['DB', 'mysql://localhost/db'],
    ['MODE', 'medium'],
    ['FLAG', 'maybe'],
    ['PREFIX', 'UPPER'],
    ['PREFIX', 'waytoolongprefix'],
  ])('rejects %s=%p with a ConfigError naming the variable', (name, raw) => {
    const err = configError(spec, { [name]: raw });
    expect(err.name).toBe('ConfigError');
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0]?.startsWith(`${name}: `)).toBe(true);
    expect(err.message).toContain(name);
  });

  it('includes the offending value in the problem', () => {
    expect(configError(spec, { MODE: 'medium' }).problems[0]).toContain('"medium"');
    expect(configError(spec, { COUNT: '101' }).problems[0]).toContain('101');
  });

  it('lists every bad variable at once, not just the first', () => {
    const err = configError(spec, { COUNT: 'x', PORT: '99999', MODE: 'nope', FLAG: 'perhaps', PREFIX: 'ok' });
    expect(err.problems).toHaveLength(4);
    const names = err.problems.map((p) => p.split(':')[0]).sort();
    expect(names).toEqual(['COUNT', 'FLAG', 'MODE', 'PORT']);
    for (const n of names) expect(err.message).toContain(`  - ${n}: `);
  });

  it('reports a required variable (no default) that is missing or empty', () => {
    const required = { API_TOKEN: v.str(undefined, 'the token to call upstream'), LIMIT: v.int(undefined, 'a limit') };
    for (const env of [{}, { API_TOKEN: '', LIMIT: '' }]) {
      const err = configError(required, env);
      expect(err.problems).toEqual(['API_TOKEN: is required (the token to call upstream)', 'LIMIT: is required (a limit)']);
    }
    expect(loadConfig(required, { API_TOKEN: 't', LIMIT: '3' })).toEqual({ API_TOKEN: 't', LIMIT: 3 });
  });

  it('reports missing required and bad values together', () => {
    const mixed = { NEED: v.str(undefined, 'needed'), PORT: v.port(1, 'a port') };
    const err = configError(mixed, { PORT: 'eighty' });
    expect(err.problems).toHaveLength(2);
    expect(err.problems[0]).toMatch(/^NEED: is required/);
    expect(err.problems[1]).toMatch(/^PORT: must be an integer/);
  });

  it('ignores variables that are not in the spec', () => {
    expect(loadConfig({ A: v.int(1, 'a') }, { A: '2', OTHER: 'x' })).toEqual({ A: 2 });
  });
});

describe('baseConfigSpec', () => {
  it('loads from an empty environment with localhost defaults', () => {
    const c = loadConfig(baseConfigSpec, {});
    expect(c).toEqual({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/accounting',
      NATS_URL: 'nats://127.0.0.1:4222',
      NATS_PREFIX: 'acct',
      LOG_LEVEL: 'info',
      OPS_PORT: 9100,
      RPC_TIMEOUT_MS: 5000,
      DB_POOL_MAX: 10,
      SHUTDOWN_TIMEOUT_MS: 15_000,
      NATS_USER: '',
      NATS_PASSWORD: '',
      NATS_NKEY_SEED: '',
    });
    expect(LOG_LEVELS).toContain(c.LOG_LEVEL);
  });

  it('every default survives its own parser', () => {
    for (const [name, s] of Object.entries(baseConfigSpec)) {
      expect(s.default).toBeDefined();
      expect(s.parse(String(s.default))).toEqual(s.default);
      expect(name).toMatch(/^[A-Z_]+$/);
    }
  });

  it('rejects a NATS_PREFIX that would break subject names and an out-of-range RPC timeout', () => {
    const err = configError(baseConfigSpec, { NATS_PREFIX: 'a.b', RPC_TIMEOUT_MS: '10', LOG_LEVEL: 'verbose' });
    expect(err.problems.map((p) => p.split(':')[0])).toEqual(['NATS_PREFIX', 'LOG_LEVEL', 'RPC_TIMEOUT_MS']);
  });
});

describe('natsAuthSpec', () => {
  it('leaves the credentials unset by default and checks a seed and a user name when given', () => {
    expect(loadConfig(natsAuthSpec, {})).toEqual({ NATS_USER: '', NATS_PASSWORD: '', NATS_NKEY_SEED: '' });
    const err = configError(natsAuthSpec, { NATS_USER: 'a.b', NATS_PASSWORD: 'short', NATS_NKEY_SEED: 'SAxyz' });
    expect(err.problems.map((p) => p.split(':')[0])).toEqual(['NATS_USER', 'NATS_PASSWORD', 'NATS_NKEY_SEED']);
    expect(loadConfig(natsAuthSpec, { NATS_NKEY_SEED: `SU${'A'.repeat(56)}` }).NATS_NKEY_SEED).toHaveLength(58);
  });
});

describe('describeConfig', () => {
  it('renders a markdown row per variable, marking required ones', () => {
    const table = describeConfig({ A: v.int(3, 'doc a'), B: v.str(undefined, 'doc b') });
    expect(table.split('\n')).toEqual(['| A | 3 | doc a |', '| B | (required) | doc b |']);
  });
});

describe('databaseUrlOf', () => {
  const shared = 'postgres://postgres@127.0.0.1:5432/accounting';
  it('names the variable after the service', () => {
    expect(databaseUrlVarOf('receivables')).toBe('RECEIVABLES_DATABASE_URL');
    expect(databaseUrlVarOf('webhook-dispatcher')).toBe('WEBHOOK_DISPATCHER_DATABASE_URL');
  });
  it("uses the service's own URL when set, else the shared one", () => {
    const own = 'postgres://u@db-receivables:5432/receivables';
    expect(databaseUrlOf('receivables', shared, { RECEIVABLES_DATABASE_URL: own })).toBe(own);
    expect(databaseUrlOf('payables', shared, { RECEIVABLES_DATABASE_URL: own })).toBe(shared);
    expect(databaseUrlOf('payables', shared, { PAYABLES_DATABASE_URL: '' })).toBe(shared);
  });
  it('refuses a URL that is not Postgres, naming the variable', () => {
    expect(() => databaseUrlOf('reporting', shared, { REPORTING_DATABASE_URL: 'mysql://x/y' })).toThrow(/REPORTING_DATABASE_URL/);
  });
});
