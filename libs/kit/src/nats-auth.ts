import { BUS_PRINCIPALS, type BusPrincipal, busPermissions } from '@acct/contracts';
import { nkeys } from 'nats';

/**
 * The nats-server `authorization` block of a stack: one user per principal (each service, shared by
 * its replicas, and `admin`) with the permissions busPermissions() gives it. Every deployment renders
 * it from here: the stack tool (nkeys generated per start), compose (deploy/nats/auth.conf, passwords
 * from the nats container's environment) and the Helm chart (files/nats-permissions.json).
 */

/** How a principal proves who it is: an nkey (public key), a password, or an environment variable of nats-server holding it. */
export type BusCredential = { nkey: string } | { password: string } | { passwordEnv: string };

/** The variable of nats-server's environment that holds a principal's password: NATS_PASSWORD_WEBHOOK_DISPATCHER. */
export function passwordEnvOf(principal: BusPrincipal): string {
  return `NATS_PASSWORD_${principal.toUpperCase().replace(/-/g, '_')}`;
}

const q = (s: string) => JSON.stringify(s);
const list = (xs: string[]) => `[${xs.map(q).join(', ')}]`;

/** Messages a process may send to one reply subject it was given (allow_responses). */
export const RESPONSES_MAX = 100_000;

/** The `authorization { users = [...] }` block for NATS_PREFIX `prefix`; anonymous clients are refused. */
export function renderNatsAuthorization(prefix: string, credentialOf: (p: BusPrincipal) => BusCredential): string {
  const user = (p: BusPrincipal): string[] => {
    const c = credentialOf(p);
    const perms = busPermissions(prefix, p);
    const who = 'nkey' in c ? [`nkey: ${q(c.nkey)}`] : [`user: ${q(p)}`, `password: ${'password' in c ? q(c.password) : `$${c.passwordEnv}`}`];
    return [
      '    {',
      ...who.map((l) => `      ${l}`),
      '      permissions: {',
      `        publish: { allow: ${list(perms.publish)} }`,
      `        subscribe: { allow: ${list(perms.subscribe)} }`,
      // More than one message per request: reporting's rebuild answers with progress messages (about one a
      // second, up to REPORTING_REBUILD_TIMEOUT_MS) before its reply; `true` would allow only the first.
      ...(perms.allowResponses ? [`        allow_responses: { max: ${RESPONSES_MAX} }`] : []),
      '      }',
      '    }',
    ];
  };
  return [
    `# NATS users of the accounting API (NATS_PREFIX ${prefix}), from busPermissions() in libs/contracts/src/bus-permissions.ts.`,
    'authorization {',
    '  users = [',
    ...BUS_PRINCIPALS.flatMap(user),
    '  ]',
    '}',
    '',
  ].join('\n');
}

interface UserKeyPair {
  getSeed(): Uint8Array;
  getPublicKey(): string;
}

/** Fresh nkeys for every principal: the seeds (NATS_NKEY_SEED of each process) and the server's config. */
export function generateBusNkeys(prefix: string): { seeds: Record<BusPrincipal, string>; config: string } {
  const dec = new TextDecoder();
  // nats re-exports nkeys.js, whose types the linter does not follow: the two calls used, typed here.
  const keys = nkeys as unknown as { createUser(): UserKeyPair };
  const pairs = Object.fromEntries(BUS_PRINCIPALS.map((p) => [p, keys.createUser()])) as Record<BusPrincipal, UserKeyPair>;
  const seeds = Object.fromEntries(BUS_PRINCIPALS.map((p) => [p, dec.decode(pairs[p].getSeed())])) as Record<BusPrincipal, string>;
  return { seeds, config: renderNatsAuthorization(prefix, (p) => ({ nkey: pairs[p].getPublicKey() })) };
}
