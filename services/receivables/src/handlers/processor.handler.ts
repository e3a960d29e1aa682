import { randomUUID } from 'node:crypto';
import { AppError, type RpcBodyOf, type RpcOkOf, type RpcRequestOf, type TrustedContext, limits, single } from '@acct/contracts';
import { type RpcServer, decryptSecret, encryptSecret, scopeOf } from '@acct/kit';
import { type Books, isUniqueViolation, retryOnceOnUnique } from '@acct/posting';
import type { ReceivablesConfig } from '../config';
import { type PaymentProcessor, PaymentProcessorSchema, eventDto, paymentProcessorDto } from '../entities';
import { type StripeEvent, asStripeEvent, unstorable, verifyStripeSignature } from '../domain/stripe';
import { type EventInput, eventHash, storeEvent } from '../flows/events';
import { applyStripeEvent } from '../flows/stripe';
import { findFirstEvent, findProcessor, findProcessorBySourceId, markProcessorVerified } from '../queries';

/** Constraints a concurrent delivery of the same Stripe event can trip on before its own event row does. */
const RACES = ['inbound_events_external_id', 'payments_external_id', 'processor_payouts_external_id'];

const notConfigured = () => new AppError('not_found', 'No payment processor is configured for this connected app and environment.');

/**
 * PUT/GET/DELETE /settings/payment-processor (per connected app and environment) and the Stripe
 * webhook input they configure, POST /hooks/stripe/{source_id}.
 */
export function registerProcessorHandlers(server: RpcServer, books: Books, config: ReceivablesConfig): void {
  const { orm } = books;
  const key = () => config.processorSecretKey;

  server.handle('payment_processor.get', async (req) => {
    const p = await findProcessor(books.db(req.ctx), req.ctx.connectedAppId);
    if (!p) throw notConfigured();
    return { ok: true, status: 200, body: single('payment_processor', paymentProcessorDto(p)) };
  });

  server.handle('payment_processor.put', async (req) => {
    // Two first PUTs at once: the second finds the first's row and updates it.
    const row = await retryOnceOnUnique('payment_processors_app', () => putProcessor(books, key(), req));
    return { ok: true, status: 200, body: single('payment_processor', paymentProcessorDto(row)) };
  });

  server.handle('payment_processor.delete', async (req) => {
    const em = orm.em.fork();
    const p = await findProcessor({ em, scope: scopeOf(req.ctx) }, req.ctx.connectedAppId);
    if (!p) throw notConfigured();
    await em.nativeDelete(PaymentProcessorSchema, { id: p.id });
    return { ok: true, status: 200, body: single('payment_processor', { provider: p.provider, source_id: p.id, deleted: true as const }) };
  });

  server.handle('processor_hooks.stripe', async (req) => {
    const source = await findProcessorBySourceId(orm.em.fork(), req.params.source_id);
    if (!source) throw new AppError('not_found', 'No payment processor has this webhook URL.');
    const event = verifiedStripeEvent(req.body, decryptSecret(key(), source.id, source.secretEncrypted));
    // Only the first correctly signed event writes: later ones skip the round trip.
    if (source.status === 'unverified') await markProcessorVerified(orm.em.fork(), source.id, new Date());
    return storeStripeEvent(books, source, event, req.ctx.requestId);
  });
}

/** The processor row of the caller's app after a PUT: made, kept (the same secret) or given the new secret. */
async function putProcessor(books: Books, secretKey: ReceivablesConfig['processorSecretKey'], req: RpcRequestOf<'payment_processor.put'>): Promise<PaymentProcessor> {
  const secret = req.body.signing_secret;
  const em = books.orm.em.fork();
  const now = new Date();
  const existing = await findProcessor({ em, scope: scopeOf(req.ctx) }, req.ctx.connectedAppId);
  if (!existing) {
    const id = randomUUID();
    const row: PaymentProcessor = {
      id,
      ...scopeOf(req.ctx),
      connectedAppId: req.ctx.connectedAppId,
      provider: req.body.provider,
      secretEncrypted: encryptSecret(secretKey, id, secret),
      status: 'unverified',
      verifiedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await em.insert(PaymentProcessorSchema, row);
    return row;
  }
  // The same secret again changes nothing; another one (Stripe rolled it) keeps the webhook URL
  // and waits for an event signed with it.
  if (decryptSecret(secretKey, existing.id, existing.secretEncrypted) === secret) return existing;
  existing.secretEncrypted = encryptSecret(secretKey, existing.id, secret);
  existing.status = 'unverified';
  existing.verifiedAt = null;
  existing.updatedAt = now;
  await em.flush();
  return existing;
}

/** The Stripe event of a webhook delivery, once its signature verifies under the secret and its bytes are a storable event. */
function verifiedStripeEvent(body: RpcBodyOf<'processor_hooks.stripe'>, secret: string): StripeEvent {
  const bytes = Buffer.from(body.payload_base64, 'base64');
  const check = verifyStripeSignature(body.signature, bytes, secret, Math.floor(Date.now() / 1000));
  if (!check.ok) {
    throw new AppError('signature_invalid', `The Stripe-Signature does not verify: ${check.message}`, [{ field: 'Stripe-Signature', issue: check.issue, message: check.message }]);
  }
  // Signed by the holder of the secret: only now are the bytes parsed.
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    parsed = null;
  }
  const why = unstorable(parsed, limits.json_depth_max);
  if (why) throw AppError.validation(`The signed body cannot be stored: ${why}.`, [{ field: '/', issue: 'invalid_body', message: why }]);
  const event = asStripeEvent(parsed);
  if (!event)
    throw AppError.validation('The signed body is not a Stripe event (id, type and data.object).', [
      { field: '/', issue: 'not_a_stripe_event', message: 'Expected a Stripe event object.' },
    ]);
  return event;
}

/** Stores and applies a verified Stripe event once (by Stripe's event id); a replay answers as the first delivery. */
async function storeStripeEvent(books: Books, source: PaymentProcessor, event: StripeEvent, requestId: string): Promise<RpcOkOf<'processor_hooks.stripe'>> {
  // The processor's app and environment are the tenancy of everything the event touches.
  const ctx: TrustedContext = {
    organizationId: source.organizationId,
    connectedAppId: source.connectedAppId,
    environment: source.environment,
    apiKeyId: `processor:${source.id}`,
    requestId,
  };
  const input: EventInput = {
    externalEventId: event.id,
    eventType: event.type,
    payload: event as unknown as Record<string, unknown>,
    idempotencyKey: null,
    source: 'stripe',
    sourceId: source.id,
  };
  const hash = eventHash(input.eventType, input.payload);
  // Deduplicated on Stripe's event id alone: a replay is answered as the first delivery.
  const firstOf = () => findFirstEvent(books.db(ctx), 'stripe', event.id, undefined);
  const dup = await firstOf();
  if (dup) return { ok: true, status: 200, body: single('event', eventDto(dup, true)) };
  try {
    const stored = await retryOnceOnUnique('payments_external_id', () => books.transact(ctx, (tx) => storeEvent(tx, input, hash, applyStripeEvent)));
    return { ok: true, status: 200, body: single('event', eventDto(stored, false)) };
  } catch (e) {
    // Stripe retried while the first delivery was being applied: that one won, this is its duplicate.
    if (RACES.some((c) => isUniqueViolation(e, c))) {
      const again = await firstOf();
      if (again) return { ok: true, status: 200, body: single('event', eventDto(again, true)) };
    }
    throw e;
  }
}
