import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { AppError, type ErrorDetail, page } from '@acct/contracts';
import type { Orm } from '@acct/kit';
import type { Ctx, LocalHandler } from '../middlewares/state';
import { type RelyingParty, authenticationOptions, listPasskeys, passkeyJson, passkeySignIn, registerPasskey, registrationOptions, removePasskey } from './passkeys';
import { recordAudit } from './audit-log';
import type { Member } from './types';

/** Starts a dashboard session for a member (sets the cookie): sessions.ts's, injected. */
export type StartSession = (ctx: Ctx, member: Member) => Promise<{ csrf_token: string }>;

export interface PasskeyRouteDeps {
  orm: Orm;
  startSession: StartSession;
  /**
   * DASHBOARD_ORIGIN (e.g. https://dashboard.example.com): the origin passkeys are bound to, its
   * host name the relying party id. Empty or absent: the request's own origin (scheme and Host).
   */
  dashboardOrigin?: string;
}

/** The answer to a passkey that does not sign in: the one a wrong password gets. */
export const SIGN_IN_FAILED_MESSAGE = 'The email or password is not right.';

export type PasskeyHandlerName = 'listPasskeys' | 'passkeyOptions' | 'registerPasskey' | 'deletePasskey' | 'passkeySignInOptions' | 'passkeySignIn';

/** Where each handler goes (koa-router paths), and whether it needs a signed-in member (ctx.state.dashboard). */
export const PASSKEY_ROUTES: ReadonlyArray<{ method: 'GET' | 'POST' | 'DELETE'; path: string; handler: PasskeyHandlerName; signedIn: boolean }> = [
  { method: 'GET', path: '/dashboard/api/passkeys', handler: 'listPasskeys', signedIn: true },
  { method: 'POST', path: '/dashboard/api/passkeys/options', handler: 'passkeyOptions', signedIn: true },
  { method: 'POST', path: '/dashboard/api/passkeys', handler: 'registerPasskey', signedIn: true },
  { method: 'DELETE', path: '/dashboard/api/passkeys/:id', handler: 'deletePasskey', signedIn: true },
  { method: 'POST', path: '/dashboard/api/session/passkey/options', handler: 'passkeySignInOptions', signedIn: false },
  { method: 'POST', path: '/dashboard/api/session/passkey', handler: 'passkeySignIn', signedIn: false },
];

/** The relying party of a request: the configured dashboard origin, else the request's own. */
export function relyingParty(ctx: Ctx, dashboardOrigin?: string): RelyingParty {
  if (dashboardOrigin) {
    const url = new URL(dashboardOrigin);
    return { origin: url.origin, rpID: url.hostname };
  }
  // Not ctx.origin: Koa 3's is the request's Origin header.
  return { origin: `${ctx.protocol}://${ctx.host}`, rpID: ctx.hostname };
}

/** A member as the JSON API shows one (docs/dashboard.md). */
export const memberJson = (m: Member) => ({ id: m.id, email: m.email, name: m.name, role: m.role, organization_id: m.organizationId, created_at: m.createdAt.toISOString() });

// ---------------------------------------------------------------------------------------------
// Bodies

const invalid = (message: string, field: string, issue: string, detail: string): AppError => AppError.validation(message, [{ field, issue, message: detail }]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** A credential id is at most 1023 bytes (WebAuthn §5.1): 1364 base64url characters. */
const MAX_ID_CHARS = 1364;
const MAX_NAME_CHARS = 100;

function bodyOf(ctx: Ctx, allowed: readonly string[]): Record<string, unknown> {
  const body: unknown = ctx.request.body ?? {};
  if (!isObject(body)) throw invalid('The body must be a JSON object.', '/', 'invalid_type', 'Send a JSON object.');
  const extra = Object.keys(body).find((k) => !allowed.includes(k));
  if (extra !== undefined) throw invalid('The body has an unknown field.', `/${extra}`, 'unknown_field', `${extra} is not a field of this request.`);
  return body;
}

/** Checks the parts of a credential response the library reads, and keeps only those. */
function credentialOf(v: unknown, parts: { required: readonly string[]; optional: readonly string[] }): Record<string, unknown> {
  const fail = (field: string, message: string) => invalid('The passkey response is malformed.', `/response${field}`, 'invalid', message);
  if (!isObject(v)) throw fail('', 'response must be the credential as JSON (an object).');
  for (const k of ['id', 'rawId'] as const) {
    const s = v[k];
    if (typeof s !== 'string' || s.length > MAX_ID_CHARS || !BASE64URL.test(s)) throw fail(`/${k}`, `${k} must be base64url, at most ${MAX_ID_CHARS} characters.`);
  }
  if (v.type !== 'public-key') throw fail('/type', 'type must be public-key.');
  if (v.clientExtensionResults !== undefined && !isObject(v.clientExtensionResults)) throw fail('/clientExtensionResults', 'clientExtensionResults must be an object.');
  if (v.authenticatorAttachment !== undefined && typeof v.authenticatorAttachment !== 'string') throw fail('/authenticatorAttachment', 'authenticatorAttachment must be a string.');
  const r = v.response;
  if (!isObject(r)) throw fail('/response', 'response.response must be an object.');
  const inner: Record<string, unknown> = {};
  for (const k of [...parts.required, ...parts.optional]) {
    const s = r[k];
    if (s === undefined && parts.optional.includes(k)) continue;
    if (typeof s !== 'string' || (s !== '' && !BASE64URL.test(s)) || (s === '' && parts.required.includes(k))) throw fail(`/response/${k}`, `${k} must be base64url.`);
    inner[k] = s;
  }
  if (r.transports !== undefined) {
    if (!Array.isArray(r.transports) || r.transports.length > 10 || !r.transports.every((t) => typeof t === 'string' && /^[a-z-]{1,20}$/.test(t))) {
      throw fail('/response/transports', 'transports must be a list of transport names.');
    }
    inner.transports = r.transports;
  }
  const out: Record<string, unknown> = { id: v.id, rawId: v.rawId, type: 'public-key', response: inner, clientExtensionResults: v.clientExtensionResults ?? {} };
  if (v.authenticatorAttachment !== undefined) out.authenticatorAttachment = v.authenticatorAttachment;
  return out;
}

function registrationBody(ctx: Ctx): { name?: string; response: RegistrationResponseJSON } {
  const body = bodyOf(ctx, ['name', 'response']);
  let name: string | undefined;
  if (body.name !== undefined && body.name !== null) {
    name = typeof body.name === 'string' ? body.name.trim() : undefined;
    if (name === undefined || name.length < 1 || name.length > MAX_NAME_CHARS || /\p{Cc}/u.test(name)) {
      throw invalid('The passkey name is invalid.', '/name', 'invalid', `name must be 1–${MAX_NAME_CHARS} characters, no control characters.`);
    }
  }
  if (body.response === undefined) throw invalid('The body is missing a field.', '/response', 'required', 'response is required.');
  const response = credentialOf(body.response, { required: ['clientDataJSON', 'attestationObject'], optional: ['authenticatorData', 'publicKey'] });
  return { ...(name !== undefined ? { name } : {}), response: response as unknown as RegistrationResponseJSON };
}

function authenticationBody(ctx: Ctx): AuthenticationResponseJSON {
  const body = bodyOf(ctx, ['response']);
  if (body.response === undefined) throw invalid('The body is missing a field.', '/response', 'required', 'response is required.');
  return credentialOf(body.response, { required: ['clientDataJSON', 'authenticatorData', 'signature'], optional: ['userHandle'] }) as unknown as AuthenticationResponseJSON;
}

function pageOf(ctx: Ctx): { limit: number; startingAfter?: string; endingBefore?: string } {
  const q = ctx.query;
  const details: ErrorDetail[] = [];
  const one = (k: string): string | undefined => {
    const v = q[k];
    if (Array.isArray(v)) details.push({ field: k, issue: 'invalid', message: `${k} may be given once.` });
    return typeof v === 'string' ? v : undefined;
  };
  const rawLimit = one('limit');
  const limit = rawLimit === undefined ? 25 : /^\d{1,3}$/.test(rawLimit) ? Number(rawLimit) : NaN;
  if (!(limit >= 1 && limit <= 100)) details.push({ field: 'limit', issue: 'out_of_range', message: 'limit must be an integer from 1 to 100.' });
  const startingAfter = one('starting_after');
  const endingBefore = one('ending_before');
  if (startingAfter !== undefined && endingBefore !== undefined) {
    details.push({ field: 'ending_before', issue: 'conflict', message: 'Give starting_after or ending_before, not both.' });
  }
  const unknown = Object.keys(q).filter((k) => !['limit', 'starting_after', 'ending_before'].includes(k));
  for (const k of unknown) details.push({ field: k, issue: 'unknown_parameter', message: `${k} is not a parameter of this list.` });
  if (details.length) throw AppError.validation('The query string is invalid.', details);
  return { limit, ...(startingAfter !== undefined ? { startingAfter } : {}), ...(endingBefore !== undefined ? { endingBefore } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Handlers

const signedInMember = (ctx: Ctx): Member => {
  const session = ctx.state.dashboard;
  if (!session) throw new AppError('unauthorized', 'Sign in to the dashboard first.');
  return session.member;
};

const address = (ctx: Ctx): string | null => ctx.ip || null;

/** The passkey routes of docs/dashboard.md, by handler name (mounted as PASSKEY_ROUTES says). */
export function passkeyHandlers(deps: PasskeyRouteDeps): Record<PasskeyHandlerName, LocalHandler> {
  const em = () => deps.orm.em.fork();
  const rp = (ctx: Ctx) => relyingParty(ctx, deps.dashboardOrigin);
  return {
    listPasskeys: async (ctx) => {
      const member = signedInMember(ctx);
      const query = pageOf(ctx);
      const rows = await listPasskeys(em(), member.id, query);
      if (!rows)
        throw invalid(
          'The cursor is not one of your passkeys.',
          query.startingAfter !== undefined ? 'starting_after' : 'ending_before',
          'unknown_cursor',
          'Give the id of a passkey of this list.',
        );
      const { items, pagination } = page(rows, query.limit, 0);
      ctx.body = { data: items.map(passkeyJson), pagination };
    },
    passkeyOptions: async (ctx) => {
      const member = signedInMember(ctx);
      bodyOf(ctx, []);
      ctx.body = { data: await registrationOptions(em(), member, rp(ctx)) };
    },
    registerPasskey: async (ctx) => {
      const member = signedInMember(ctx);
      const input = registrationBody(ctx);
      const saved = await registerPasskey(em(), member, rp(ctx), input, address(ctx));
      ctx.status = 201;
      ctx.body = { data: passkeyJson(saved) };
    },
    deletePasskey: async (ctx) => {
      const member = signedInMember(ctx);
      const id = String(ctx.params.id ?? '');
      if (!(await removePasskey(em(), member, id, address(ctx)))) throw AppError.notFound('Passkey', id);
      ctx.status = 204;
    },
    passkeySignInOptions: async (ctx) => {
      bodyOf(ctx, []);
      ctx.body = { data: await authenticationOptions(em(), rp(ctx)) };
    },
    passkeySignIn: async (ctx) => {
      const response = authenticationBody(ctx);
      const tx = em();
      const result = await passkeySignIn(tx, rp(ctx), response, address(ctx));
      if (!result.member) {
        ctx.state.log.info({ reason: result.reason }, 'passkey sign-in refused');
        throw new AppError('unauthorized', SIGN_IN_FAILED_MESSAGE);
      }
      const { member, passkey } = result;
      const { csrf_token } = await deps.startSession(ctx, member);
      await recordAudit(tx, {
        organizationId: member.organizationId,
        actor: { memberId: member.id, email: member.email },
        action: 'session.created',
        target: passkey.id,
        address: address(ctx),
      });
      ctx.status = 200;
      ctx.body = { data: { member: memberJson(member), csrf_token } };
    },
  };
}
