/** The fixed texts of the OpenAPI document: what each error status means, the headers and the tags. */
import type { JsonSchema } from './schemas/common';
import { limits } from './limits';

export const ERROR_RESPONSES: Record<string, string> = {
  '400':
    'validation_failed (bad JSON, schema violation, unknown body field, unknown or repeated query parameter, bad uuid or date, U+0000 or a lone surrogate in a string or key, ' +
    'a rule of the operation description) or trusted_scope_field_not_allowed.',
  '401': 'unauthorized: the bearer key is missing, malformed, unknown or revoked.',
  '403': 'forbidden (the connected app is disabled) or module_disabled (hard module enforcement only).',
  '404': 'not_found: no such record (the path id, or a record the body refers to) in the organization and environment of the key.',
  '409':
    'conflict: the current state forbids it, the external id or Idempotency-Key was used with other content, or the first request with this Idempotency-Key is still in flight; ' +
    'period_locked: the accounting date of a posting write (post, payment, payout, reversal, void) is on or before the lock date (GET /settings/books-lock); nothing was stored.',
  '413': `validation_failed: the JSON body is over ${limits.json_body_bytes_max} bytes.`,
  '415': 'validation_failed: the Content-Type is not application/json, or its charset is not utf-8.',
  '429': 'rate_limited: the key used up its token bucket; retry after Retry-After seconds.',
  '500': 'internal_error.',
  '503': 'service_unavailable: a backing service is down or timed out; retry after Retry-After seconds.',
};

/** A signed public webhook input answers these instead (no API key, no JSON Schema of ours on the body). */
export const RAW_ERROR_RESPONSES: Record<string, string> = {
  '400':
    'signature_invalid: the signature header is missing or malformed, no v1 signature matches, or its timestamp is outside the tolerance (nothing is stored); validation_failed: a signed body that is not a Stripe event.',
  '404': 'not_found: no payment processor is configured with this source id.',
  '413': `validation_failed: the body is over ${limits.webhook_body_bytes_max} bytes.`,
  '429': 'rate_limited: the client address used up its token bucket; retry after Retry-After seconds.',
};

/** A portal link that is unknown or revoked: a page for a browser, the error envelope for anyone else. */
export const PORTAL_NOT_FOUND =
  'not_found: the token is unknown or the share revoked (the two look alike). A request that prefers text/html (a browser) gets a page saying the link is not valid; any other gets the error envelope.';

/** An error body as the gateway sends it. */
function errorExample(code: string, message: string, details: unknown[] = []): Record<string, unknown> {
  return { error: { code, message, details, request_id: 'req_7f3c9a2b41d84e6f' } };
}

export const ERROR_EXAMPLES: Record<string, Record<string, unknown>> = {
  '400': errorExample('validation_failed', 'The request is not valid.', [{ field: '/name', issue: 'required', message: 'name is required' }]),
  '404': errorExample('not_found', 'No such record.'),
};

export const SHARED_NAMES: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '409': 'Conflict',
  '413': 'PayloadTooLarge',
  '415': 'UnsupportedMediaType',
  '429': 'RateLimited',
  '500': 'InternalError',
  '503': 'ServiceUnavailable',
};

/** The response headers the gateway sets (components.headers). */
export const HEADERS: Record<string, unknown> = {
  RequestId: {
    description:
      "The id of this request (the caller's X-Request-Id when it is tame, else one the gateway makes); quote it to support. The error envelope repeats it as request_id.",
    schema: { type: 'string' },
  },
  RateLimitLimit: { description: 'The size of the token bucket of the key (or, on a public route, of the client address).', schema: { type: 'integer', minimum: 0 } },
  RateLimitRemaining: { description: 'Tokens left in the bucket after this request.', schema: { type: 'integer', minimum: 0 } },
  RateLimitReset: { description: 'Seconds until the bucket is full again.', schema: { type: 'integer', minimum: 0 } },
  RetryAfter: { description: 'Seconds to wait before retrying (429 rate_limited, 503 service_unavailable).', schema: { type: 'integer', minimum: 0 } },
  IdempotentReplayed: {
    description: 'true when this answer is the replay of an earlier request (same Idempotency-Key, or the same external id with the same content); absent otherwise.',
    schema: { type: 'string', enum: ['true'] },
  },
  ModuleWarning: {
    description:
      'Set when the route belongs to a module the organization has not enabled (soft module enforcement): the request is served, the header says which module to enable.',
    schema: { type: 'string' },
  },
};

/** The tags in reading order, with what each groups. */
export const TAGS: Record<string, string> = {
  Customers: 'The customers invoices and estimates are made out to; looked up by external_customer_id.',
  Estimates: 'Quotes to a customer: drafted, sent, accepted and turned into an invoice.',
  Invoices: 'Invoices to customers: drafted, posted to the ledger (A/R and revenue), paid, voided or reversed.',
  Payments: 'Payments received against invoices, posted to the ledger.',
  'Payment processor': 'Payments from a card processor (Stripe): its signed webhook input and the processor settings.',
  'Processor payouts': 'Payouts of a payment processor to the bank, with their fees, posted to the ledger.',
  Vendors: 'The vendors bills are received from (accounts payable).',
  Bills: 'Bills from vendors: drafted, posted (A/P and expense), paid or reversed.',
  'Vendor payments': 'Payments made to vendors against bills.',
  Ledger: 'The chart of accounts and journal entries: the books every posting writes to.',
  Reports: 'Financial reports computed from the ledger: balance sheet, profit and loss, aging, 1099 and more.',
  Documents: 'Uploaded files (receipts, contracts) attached to records, with their downloads.',
  'Document renders': 'PDF renders of invoices, estimates and other records.',
  'Document shares': 'Public links to a rendered document, for a customer without an account.',
  'Customer portal': 'The public pages a share link opens (no API key).',
  Webhooks: 'Endpoints that receive the outbound events (see the webhooks section), their deliveries and secrets.',
  Events: 'The events of the organization, as delivered to webhook endpoints.',
  Settings: 'Organization settings: modules, branding and embedded-settings options.',
  Auth: 'The API key in use: who it belongs to.',
  Developers: 'This document and the developer reference.',
};

/** The headers of an outbound webhook delivery (SPEC.md §6, API-DECISIONS §11: Standard Webhooks). */
export const WEBHOOK_HEADERS: Record<string, { description: string; schema: JsonSchema }> = {
  'Service-Signature': {
    description: 'Hex HMAC-SHA-256, keyed by the whole endpoint secret string, of "<Service-Timestamp>.<raw body>".',
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
  'Service-Timestamp': { description: 'Unix time in seconds of this attempt (part of the signed string).', schema: { type: 'string', pattern: '^[0-9]+$' } },
  'Service-Event-Id': { description: 'The delivery id: the same value as the body id, the same across retries; deduplicate on it.', schema: { type: 'string', format: 'uuid' } },
  'webhook-id': { description: 'Standard Webhooks: the delivery id (the same as Service-Event-Id).', schema: { type: 'string', format: 'uuid' } },
  'webhook-timestamp': { description: 'Standard Webhooks: Unix time in seconds of this attempt.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  'webhook-signature': {
    description:
      'Standard Webhooks: space-separated "v1,<base64 HMAC-SHA-256 of "<webhook-id>.<webhook-timestamp>.<raw body>">", keyed by the base64-decoded part of the secret after whsec_. ' +
      'While a rotated secret is still valid there are two entries (the new secret first).',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  },
};

/** How every PATCH treats metadata (API-DECISIONS §11, patchedMetadata). */
export const METADATA_MERGE_TEXT = 'metadata is merged into the stored pairs (a key set to "" is removed; more than 50 keys after the merge is 400 on /metadata).';

/**
 * The description of the PATCH of a line document (invoice, estimate, bill: one rule, updateDraft of
 * libs/posting): content only while draft, priced and checked as on create, then metadata alone.
 */
export function draftUpdateText(d: {
  /** bill, invoice, estimate: names external_<kind>_id and the issue <kind>_<status>. */
  kind: string;
  party: 'customer' | 'vendor';
  /** More checks of the create, after the party's. */
  checks?: string;
  /** What null clears, e.g. "memo null clears it". */
  clears: string;
  /** A sentence between the content and the metadata rules. */
  note?: string;
  /** The statuses after draft, e.g. "posted or reversed". */
  after: string;
}): string {
  return (
    `Fields left out keep their value; {} changes nothing. While draft, changed line_items are priced as on create and the total recomputed; a new ${d.party}_id must exist in the key's ` +
    `organization and environment (404)${d.checks ? `, ${d.checks}` : ''}; a new external_${d.kind}_id already used by another ${d.kind} is 409 conflict (issue already_used); ${d.clears}. ` +
    `${d.note ? `${d.note} ` : ''}Once ${d.after} only metadata may be sent: any other field is 409 conflict (issue ${d.kind}_<status>). ${METADATA_MERGE_TEXT}`
  );
}
