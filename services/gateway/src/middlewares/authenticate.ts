import { AppError } from '@acct/contracts';
import { type KeyStore, keyRefusal } from '../key-store';
import { parseKey } from '../keys';
import type { GatewayMetrics } from '../metrics';
import type { Middleware } from './state';

/** What authentication needs of the key store: unit tests hand in a fake. */
export type KeyResolver = Pick<KeyStore, 'resolve'>;

const REFUSALS = {
  unknown: 'The API key is not valid.',
  revoked: 'The API key has been revoked.',
  expired: 'The API key has expired: it was rolled, use the new key.',
} as const;

/** Resolves `Authorization: Bearer <API key>` to the principal every later step relies on. */
export function authenticate({ keys, metrics }: { keys: KeyResolver; metrics: GatewayMetrics }): Middleware {
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) {
      metrics.authFailures.inc({ reason: header ? 'malformed_header' : 'missing' });
      throw new AppError('unauthorized', header ? 'The Authorization header must be "Bearer <API key>".' : 'An API key is required: send Authorization: Bearer <API key>.');
    }
    const key = m[1]!;
    if (!parseKey(key)) {
      metrics.authFailures.inc({ reason: 'malformed_key' });
      throw new AppError('unauthorized', 'The API key is malformed: keys start with svc_test_ or svc_live_.');
    }
    const principal = await keys.resolve(key);
    const refusal = principal ? keyRefusal(principal) : 'unknown';
    if (!principal || refusal) {
      const reason = refusal ?? 'unknown'; // refusal is 'unknown' when there is no principal
      metrics.authFailures.inc({ reason });
      throw new AppError('unauthorized', REFUSALS[reason]);
    }
    if (!principal.appActive) {
      metrics.authFailures.inc({ reason: 'app_disabled' });
      throw new AppError('forbidden', 'The connected app of this key is disabled.');
    }
    ctx.state.principal = principal;
    await next();
  };
}
