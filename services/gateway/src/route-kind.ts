import type { RouteDef, RouteKind } from '@acct/contracts';

export const kindOf = (route: RouteDef): RouteKind => route.kind ?? 'json';

/** Methods whose request carries a JSON body: POST, PUT and PATCH. */
export const takesBody = (route: Pick<RouteDef, 'method'>): boolean => route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';

/**
 * Routes whose service dedupes on the caller's Idempotency-Key get it forwarded instead of the
 * gateway's replay: those that say so (POST /events) and uploads, whose stream cannot be fingerprinted.
 */
export const forwardsIdempotencyKey = (route: RouteDef): boolean => Boolean(route.ownIdempotency) || kindOf(route) === 'upload';

/** What a route of each kind must look like for the gateway to serve it; a bad table fails at startup. */
export function checkRoute(route: RouteDef): void {
  const kind = kindOf(route);
  const bad = (why: string) => new Error(`route ${route.operationId} (${kind}): ${why}`);
  const keyless = kind === 'public' || kind === 'raw';
  if (route.auth !== !keyless) throw bad(keyless ? `a ${kind} route takes no API key (auth: false)` : 'only public and raw routes go without an API key');
  if (kind === 'public' && route.rpc) throw bad('a public route is answered by a gateway handler: there is no API key to build a trusted context from');
  // A raw route's service authenticates the request itself, by a signature over the bytes it gets.
  if (kind === 'raw' && (!route.rpc || route.method !== 'POST' || !route.signatureHeader)) throw bad('a raw route is a POST forwarded to a service with its signature header');
  if (kind === 'upload' && route.method !== 'POST' && route.method !== 'PUT') throw bad('an upload is a POST or a PUT');
  // A download's bytes are neither JSON-parsed nor kept for Idempotency-Key replay.
  if (kind === 'download' && route.method !== 'GET') throw bad('a download is a GET');
}
