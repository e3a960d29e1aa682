import { NATS_PREFIX_PATTERN, SERVICE_MANIFEST, type ServiceName, manifestOf } from '@acct/contracts';

/**
 * Typed configuration from environment variables, parsed once at start. Every variable has a
 * default that works on localhost; a bad value stops the process with a message naming it.
 */
export interface VarSpec<T> {
  parse(raw: string): T;
  default?: T;
  doc: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Out<S> = { [K in keyof S]: S[K] extends VarSpec<infer T> ? T : never };

function fail(message: string): never {
  throw new Error(message);
}

export const v = {
  str(def: string | undefined, doc: string, opts: { pattern?: RegExp; min?: number } = {}): VarSpec<string> {
    return {
      default: def,
      doc,
      parse: (raw) => {
        if (raw.length < (opts.min ?? 1)) fail('must not be empty');
        if (opts.pattern && !opts.pattern.test(raw)) fail(`must match ${opts.pattern}`);
        return raw;
      },
    };
  },
  int(def: number | undefined, doc: string, min = 0, max = Number.MAX_SAFE_INTEGER): VarSpec<number> {
    return {
      default: def,
      doc,
      parse: (raw) => {
        if (!/^-?\d+$/.test(raw.trim())) fail(`must be an integer, got "${raw}"`);
        const n = Number(raw);
        if (n < min || n > max) fail(`must be between ${min} and ${max}, got ${n}`);
        return n;
      },
    };
  },
  port(def: number, doc: string): VarSpec<number> {
    return v.int(def, doc, 0, 65535);
  },
  url(def: string, doc: string, protocols: string[]): VarSpec<string> {
    return {
      default: def,
      doc,
      parse: (raw) => {
        let u: URL;
        try {
          u = new URL(raw);
        } catch {
          fail(`must be a URL, got "${raw}"`);
        }
        if (!protocols.includes(u.protocol.replace(/:$/, ''))) fail(`must use ${protocols.join(' or ')}, got ${u.protocol}`);
        return raw;
      },
    };
  },
  oneOf<T extends string>(values: readonly T[], def: T, doc: string): VarSpec<T> {
    return {
      default: def,
      doc,
      parse: (raw) => {
        if (!(values as readonly string[]).includes(raw)) fail(`must be one of ${values.join(', ')}, got "${raw}"`);
        return raw as T;
      },
    };
  },
  bool(def: boolean, doc: string): VarSpec<boolean> {
    return {
      default: def,
      doc,
      parse: (raw) => {
        if (['true', '1', 'yes'].includes(raw)) return true;
        if (['false', '0', 'no'].includes(raw)) return false;
        return fail(`must be true or false, got "${raw}"`);
      },
    };
  },
};

export function loadConfig<S extends Record<string, VarSpec<unknown>>>(spec: S, env: NodeJS.ProcessEnv = process.env): Out<S> {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, s] of Object.entries(spec)) {
    const raw = env[name];
    if (raw === undefined || raw === '') {
      if (s.default === undefined) problems.push(`${name}: is required (${s.doc})`);
      else out[name] = s.default;
      continue;
    }
    try {
      out[name] = s.parse(raw);
    } catch (e) {
      problems.push(`${name}: ${(e as Error).message}`);
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return out as Out<S>;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Where each process's ops server listens unless OPS_PORT says otherwise: distinct defaults, so
 * `npm start` runs them side by side and compose/Prometheus know where to scrape.
 */
/** Default ops port of each service of the manifest. */
export const OPS_PORT_DEFAULTS: Readonly<Partial<Record<ServiceName, number>>> = Object.fromEntries(SERVICE_MANIFEST.map((s) => [s.name, s.opsPort]));

export function opsPortVar(service: ServiceName): VarSpec<number> {
  return v.port(manifestOf(service).opsPort, `${service} ops port (/metrics, /healthz, /readyz)`);
}

/** The gateway's public HTTP port (also read by `npm start` to print the URL). */
export function gatewayPortVar(): VarSpec<number> {
  return v.port(8080, 'public HTTP port of the gateway');
}

/** An optional setting: empty (the default) means unset; a value must match `pattern`. */
function optional(doc: string, pattern: RegExp, what: string): VarSpec<string> {
  return {
    default: '',
    doc,
    parse: (raw) => {
      if (raw !== '' && !pattern.test(raw)) fail(`must be ${what}`);
      return raw;
    },
  };
}

/**
 * The credentials of a process on a NATS server with authorization (the bus as a trust boundary,
 * see busPermissions in @acct/contracts): an nkey seed (preferred), or a user and password. None
 * set: an unauthenticated connection (a local or test NATS without users).
 */
export const natsAuthSpec = {
  NATS_USER: optional('NATS user of this process (with NATS_PASSWORD); empty: no user', /^[A-Za-z0-9_-]{1,64}$/, 'a NATS user name (letters, digits, _ and -)'),
  NATS_PASSWORD: optional('password of NATS_USER', /^.{8,}$/, 'at least 8 characters'),
  NATS_NKEY_SEED: optional('nkey seed of this process (SU...), instead of NATS_USER/NATS_PASSWORD', /^SU[A-Z2-7]{56}$/, 'a user nkey seed (SU followed by 56 base32 characters)'),
};

export type NatsAuthConfig = Out<typeof natsAuthSpec>;

/** Variables every service process reads. */
export const baseConfigSpec = {
  DATABASE_URL: v.url('postgres://postgres@127.0.0.1:5432/accounting', 'Postgres connection URL', ['postgres', 'postgresql']),
  NATS_URL: v.str('nats://127.0.0.1:4222', 'NATS server URL(s), comma-separated'),
  NATS_PREFIX: v.str('acct', 'prefix of every NATS subject and stream name', { pattern: NATS_PREFIX_PATTERN }),
  LOG_LEVEL: v.oneOf(LOG_LEVELS, 'info', 'log level'),
  OPS_PORT: v.port(9100, 'port of the ops HTTP server (/metrics, /healthz, /readyz)'),
  RPC_TIMEOUT_MS: v.int(5000, 'NATS request timeout in ms', 50, 120_000),
  DB_POOL_MAX: v.int(10, 'max Postgres connections per process', 1, 200),
  SHUTDOWN_TIMEOUT_MS: v.int(15_000, 'max time to drain on SIGTERM before exiting', 100, 300_000),
  ...natsAuthSpec,
};

export type BaseConfig = Out<typeof baseConfigSpec>;

/** The variable that gives one service a database of its own: `RECEIVABLES_DATABASE_URL`, `WEBHOOK_DISPATCHER_DATABASE_URL`. */
export function databaseUrlVarOf(service: ServiceName): string {
  return `${service.toUpperCase().replace(/-/g, '_')}_DATABASE_URL`;
}

/**
 * The Postgres URL of one service: its own `<SERVICE>_DATABASE_URL` when set (so each service can
 * live on its own server), else the shared DATABASE_URL.
 */
export function databaseUrlOf(service: ServiceName, sharedUrl: string, env: NodeJS.ProcessEnv = process.env): string {
  const name = databaseUrlVarOf(service);
  if (!env[name]) return sharedUrl;
  return loadConfig({ [name]: v.url(sharedUrl, `${service} Postgres connection URL`, ['postgres', 'postgresql']) }, env)[name] as string;
}

/** Markdown table of a spec, for docs and `--help`. */
export function describeConfig(spec: Record<string, VarSpec<string | number | boolean>>): string {
  return Object.entries(spec)
    .map(([k, s]) => `| ${k} | ${s.default === undefined ? '(required)' : String(s.default)} | ${s.doc} |`)
    .join('\n');
}
