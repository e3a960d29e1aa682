import { randomUUID } from 'node:crypto';
import {
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { AppError } from '@acct/contracts';
import { type EntityManager, isBackendUnavailable } from '@acct/kit';
import { recordAudit } from './audit-log';
import { ROLES, type Member, type Role } from './types';

/**
 * Passkeys (WebAuthn), a member's second way into the dashboard (API-DECISIONS §13): the `passkeys`
 * and `webauthn_challenges` tables, and the ceremonies over them through @simplewebauthn/server.
 * A challenge is kept 5 minutes and used once: verification deletes it, whatever the outcome.
 */

export const RP_NAME = 'Accounting API dashboard';
export const CHALLENGE_TTL_SECONDS = 300;
/** EdDSA, ES256, RS256: named so the library does not offer ML-DSA, experimental in Node. */
const ALGORITHMS = [-8, -7, -257];
/** The default name of a passkey registered without one. */
const DEFAULT_NAME = 'Passkey';

/** Where the ceremonies happen: the dashboard's origin and its host name (the relying party id). */
export interface RelyingParty {
  origin: string;
  rpID: string;
}

export interface Passkey {
  id: string;
  memberId: string;
  publicKey: Buffer;
  counter: number;
  transports: string[];
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** A passkey as the JSON API shows it (never its key). */
export const passkeyJson = (p: Passkey) => ({ id: p.id, name: p.name, created_at: p.createdAt.toISOString(), last_used_at: p.lastUsedAt?.toISOString() ?? null });

interface PasskeyRow {
  id: string;
  member_id: string;
  public_key: Buffer;
  counter: string | number;
  transports: string[];
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

const passkeyOf = (r: PasskeyRow): Passkey => ({
  id: r.id,
  memberId: r.member_id,
  publicKey: r.public_key,
  counter: Number(r.counter),
  transports: r.transports ?? [],
  name: r.name,
  createdAt: new Date(r.created_at),
  lastUsedAt: r.last_used_at ? new Date(r.last_used_at) : null,
});

const COLUMNS = 'p.id, p.member_id, p.public_key, p.counter, p.transports, p.name, p.created_at, p.last_used_at';

/** The 16 bytes of a member's uuid: the WebAuthn user handle (no personal data in it). */
export const userHandleOf = (memberId: string): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(memberId.replace(/-/g, ''), 'hex'));

// ---------------------------------------------------------------------------------------------
// The store

export interface PasskeyPage {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
}

/** One page of a member's passkeys, oldest first, fetched with limit + 1 rows; null when a cursor is not one of theirs. */
export async function listPasskeys(em: EntityManager, memberId: string, page: PasskeyPage): Promise<Passkey[] | null> {
  const cursor = page.startingAfter ?? page.endingBefore;
  if (cursor !== undefined) {
    const known = await em.execute(`SELECT 1 FROM passkeys WHERE id = ? AND member_id = ?`, [cursor, memberId]);
    if (!known.length) return null;
  }
  const after = page.startingAfter !== undefined;
  const before = page.endingBefore !== undefined;
  const where = after
    ? `AND (p.created_at, p.id) > (SELECT created_at, id FROM passkeys WHERE id = ?)`
    : before
      ? `AND (p.created_at, p.id) < (SELECT created_at, id FROM passkeys WHERE id = ?)`
      : '';
  const order = before ? 'DESC' : 'ASC';
  const rows = await em.execute<PasskeyRow[]>(`SELECT ${COLUMNS} FROM passkeys p WHERE p.member_id = ? ${where} ORDER BY p.created_at ${order}, p.id ${order} LIMIT ?`, [
    memberId,
    ...(cursor !== undefined ? [cursor] : []),
    page.limit + 1,
  ]);
  const items = rows.map(passkeyOf);
  // Backwards, the limit + 1st row is the one furthest back: drop it before restoring the order.
  return before ? items.slice(0, page.limit).reverse().concat(items.slice(page.limit)) : items;
}

/** Inserts a passkey; null when its credential id is taken. */
async function insertPasskey(em: EntityManager, p: Omit<Passkey, 'createdAt' | 'lastUsedAt'>): Promise<Passkey | null> {
  const rows = await em.execute<PasskeyRow[]>(
    `INSERT INTO passkeys AS p (id, member_id, public_key, counter, transports, name)
     VALUES (?, ?, ?, ?, ARRAY(SELECT jsonb_array_elements_text(?::jsonb)), ?)
     ON CONFLICT (id) DO NOTHING RETURNING ${COLUMNS}`,
    [p.id, p.memberId, p.publicKey, p.counter, JSON.stringify(p.transports), p.name],
  );
  return rows[0] ? passkeyOf(rows[0]) : null;
}

interface MemberRow {
  m_id: string;
  m_organization_id: string;
  m_email: string;
  m_name: string;
  m_role: string;
  m_created_at: Date;
}

/** A passkey by credential id, with its member (read from `members`). */
async function findPasskey(em: EntityManager, id: string): Promise<{ passkey: Passkey; member: Member } | null> {
  const rows = await em.execute<Array<PasskeyRow & MemberRow>>(
    `SELECT ${COLUMNS}, m.id AS m_id, m.organization_id AS m_organization_id, m.email AS m_email, m.name AS m_name, m.role AS m_role, m.created_at AS m_created_at
       FROM passkeys p JOIN members m ON m.id = p.member_id WHERE p.id = ?`,
    [id],
  );
  const r = rows[0];
  if (!r || !(ROLES as readonly string[]).includes(r.m_role)) return null;
  const member: Member = { id: r.m_id, organizationId: r.m_organization_id, email: r.m_email, name: r.m_name, role: r.m_role as Role, createdAt: new Date(r.m_created_at) };
  return { passkey: passkeyOf(r), member };
}

type Purpose = 'registration' | 'authentication';

/** Keeps a challenge for CHALLENGE_TTL_SECONDS, and drops those that expired (so the table stays small). */
async function saveChallenge(em: EntityManager, challenge: string, memberId: string | null, purpose: Purpose): Promise<void> {
  await em.execute(`DELETE FROM webauthn_challenges WHERE expires_at < now()`, [], 'run');
  await em.execute(
    `INSERT INTO webauthn_challenges (id, challenge, member_id, purpose, expires_at) VALUES (?, ?, ?, ?, now() + make_interval(secs => ?))`,
    [randomUUID(), challenge, memberId, purpose, CHALLENGE_TTL_SECONDS],
    'run',
  );
}

/** Uses a challenge up: deletes it, and says whether it was there, for this member and purpose, unexpired. */
async function takeChallenge(em: EntityManager, challenge: string, memberId: string | null, purpose: Purpose): Promise<boolean> {
  const rows = await em.execute<Array<{ live: boolean }>>(
    `DELETE FROM webauthn_challenges WHERE challenge = ? AND purpose = ? AND member_id IS NOT DISTINCT FROM ? RETURNING expires_at > now() AS live`,
    [challenge, purpose, memberId],
  );
  return rows.some((r) => r.live);
}

// ---------------------------------------------------------------------------------------------
// The ceremonies

/**
 * Runs a library verification whose challenge check reads the database: a database failure stays
 * what it is (503), anything else the library throws is the response's fault (`fail`).
 */
async function verifying<T>(run: (take: (fn: () => Promise<boolean>) => Promise<boolean>) => Promise<T>, fail: (e: unknown) => Error): Promise<T> {
  let dbError: Error | undefined;
  const take = async (fn: () => Promise<boolean>) => {
    try {
      return await fn();
    } catch (e) {
      dbError = e instanceof Error ? e : new Error(String(e));
      throw dbError;
    }
  };
  try {
    return await run(take);
  } catch (e) {
    if (dbError) throw dbError;
    if (isBackendUnavailable(e) || e instanceof AppError) throw e;
    throw fail(e);
  }
}

/** Options for navigator.credentials.create: the member's passkeys excluded, the challenge kept. */
export async function registrationOptions(em: EntityManager, member: Member, rp: RelyingParty): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await em.execute<Array<{ id: string; transports: string[] }>>(`SELECT id, transports FROM passkeys WHERE member_id = ?`, [member.id]);
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: rp.rpID,
    userID: userHandleOf(member.id),
    userName: member.email,
    userDisplayName: member.name,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports ?? [] })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    supportedAlgorithmIDs: ALGORITHMS,
  });
  await saveChallenge(em, options.challenge, member.id, 'registration');
  return options;
}

const registrationFailed = (e: unknown) =>
  AppError.validation('The passkey could not be registered.', [{ field: '/response', issue: 'verification_failed', message: e instanceof Error ? e.message : String(e) }]);

/** Verifies a new credential against the member's challenge, stores it and records `passkey.registered`. */
export async function registerPasskey(
  em: EntityManager,
  member: Member,
  rp: RelyingParty,
  input: { name?: string; response: RegistrationResponseJSON },
  address: string | null,
): Promise<Passkey> {
  const verified = await verifying(
    (take) =>
      verifyRegistrationResponse({
        response: input.response,
        expectedChallenge: (c) => take(() => takeChallenge(em, c, member.id, 'registration')),
        expectedOrigin: rp.origin,
        expectedRPID: rp.rpID,
        requireUserVerification: false, // userVerification 'preferred'
        supportedAlgorithmIDs: ALGORITHMS,
      }),
    registrationFailed,
  );
  if (!verified.verified) throw registrationFailed('The response did not verify.');
  const { credential } = verified.registrationInfo;
  return em.transactional(async (tx) => {
    const saved = await insertPasskey(tx, {
      id: credential.id,
      memberId: member.id,
      publicKey: Buffer.from(credential.publicKey),
      counter: credential.counter,
      transports: credential.transports ?? input.response.response.transports ?? [],
      name: input.name ?? DEFAULT_NAME,
    });
    if (!saved) throw AppError.conflict('This passkey is already registered.');
    await recordAudit(tx, { organizationId: member.organizationId, actor: { memberId: member.id, email: member.email }, action: 'passkey.registered', target: saved.id, address });
    return saved;
  });
}

/** Deletes one of the member's own passkeys and records `passkey.removed`; false when they have none by that id. */
export async function removePasskey(em: EntityManager, member: Member, id: string, address: string | null): Promise<boolean> {
  return em.transactional(async (tx) => {
    const gone = await tx.execute(`DELETE FROM passkeys WHERE id = ? AND member_id = ? RETURNING id`, [id, member.id]);
    if (!gone.length) return false;
    await recordAudit(tx, { organizationId: member.organizationId, actor: { memberId: member.id, email: member.email }, action: 'passkey.removed', target: id, address });
    return true;
  });
}

/** Options for navigator.credentials.get: no allowCredentials (discoverable credentials), the challenge kept. */
export async function authenticationOptions(em: EntityManager, rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const options = await generateAuthenticationOptions({ rpID: rp.rpID, allowCredentials: [], userVerification: 'preferred' });
  await saveChallenge(em, options.challenge, null, 'authentication');
  return options;
}

/** Why a passkey sign-in failed (only logged and audited: the caller gets one message). */
class SignInRefused extends Error {}

/**
 * The member a passkey assertion signs in, or null: an unknown credential, a user handle not its
 * member's, a challenge unknown, used or expired, a bad signature, origin or counter. The challenge
 * is used up either way; a verified sign-in moves the counter and last_used_at. A failure for a
 * known passkey records `session.failed` (actor its member, target the passkey); the caller records
 * `session.created` once the session exists.
 */
export async function passkeySignIn(
  em: EntityManager,
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  address: string | null,
): Promise<{ member: Member; passkey: Passkey } | { member: null; reason: string }> {
  const found = await findPasskey(em, response.id);
  if (!found) return { member: null, reason: 'unknown credential' };
  const { passkey, member } = found;
  const refuse = async (reason: string) => {
    await recordAudit(em, { organizationId: member.organizationId, actor: { memberId: member.id, email: member.email }, action: 'session.failed', target: passkey.id, address });
    return { member: null, reason } as const;
  };
  const handle = response.response.userHandle;
  if (handle && handle !== Buffer.from(userHandleOf(member.id)).toString('base64url')) return refuse('user handle of another member');
  let verified;
  try {
    verified = await verifying(
      (take) =>
        verifyAuthenticationResponse({
          response,
          expectedChallenge: (c) => take(() => takeChallenge(em, c, null, 'authentication')),
          expectedOrigin: rp.origin,
          expectedRPID: rp.rpID,
          credential: { id: passkey.id, publicKey: new Uint8Array(passkey.publicKey), counter: passkey.counter, transports: passkey.transports },
          requireUserVerification: false, // userVerification 'preferred'
        }),
      (e) => new SignInRefused(e instanceof Error ? e.message : String(e)),
    );
  } catch (e) {
    if (e instanceof SignInRefused) return refuse(e.message);
    throw e;
  }
  if (!verified.verified) return refuse('not verified');
  await em.execute(`UPDATE passkeys SET counter = GREATEST(counter, ?), last_used_at = now() WHERE id = ?`, [verified.authenticationInfo.newCounter, passkey.id], 'run');
  return { member, passkey };
}
