import { Optional, type Static, Type } from '@sinclair/typebox';
import { draftUpdateText } from '../openapi-texts';
import { recordResource } from '../record-resource';
import { Nullable, StringEnum, date, dateTime, externalId, idParams, obj, optionalAll, recordListQuery, singleEnvelope, uuid } from '../schemas/common';
import { metadataInput, metadataRecord } from '../schemas/metadata';
import { currency, documentNumber, lineItem, lineItemsInput, memo } from '../schemas/line-items';

const ESTIMATE_STATUSES = ['draft', 'sent', 'accepted', 'declined', 'expired', 'converted'] as const;
export type EstimateStatus = (typeof ESTIMATE_STATUSES)[number];
export const estimateCreateBody = obj({
  external_estimate_id: externalId,
  customer_id: uuid,
  issue_date: date,
  expiry_date: Optional(date),
  line_items: lineItemsInput,
  currency: Optional(currency),
  memo: Optional(memo),
  metadata: Optional(metadataInput),
});
/** PATCH /estimates/{id} (API-DECISIONS §11): any create field while draft (expiry_date and memo null clear them), only metadata after. */
export type EstimateCreateBody = Static<typeof estimateCreateBody>;
export const estimateUpdateBody = obj({ ...optionalAll(estimateCreateBody.properties), expiry_date: Optional(Nullable(date)), memo: Optional(Nullable(memo)) });
export type EstimateUpdateBody = Static<typeof estimateUpdateBody>;
export const estimate = obj({
  id: uuid,
  external_estimate_id: Type.String(),
  customer_id: uuid,
  issue_date: date,
  expiry_date: Optional(Nullable(date)),
  line_items: Type.Array(lineItem),
  status: StringEnum(ESTIMATE_STATUSES),
  total_cents: Type.Integer(),
  currency: Type.String(),
  memo: Optional(Nullable(Type.String())),
  invoice_id: Optional(Nullable(uuid)),
  metadata: metadataRecord,
  created_at: dateTime,
});
export type EstimateDto = Static<typeof estimate>;
/**
 * Any estimate status is a well-formed request; whether the move is allowed is the domain's rule
 * (API-DECISIONS §5), and a move it refuses is 409 conflict (§1), converted included (only POST /convert makes it).
 */
export const estimateStatusBody = obj({
  status: StringEnum(ESTIMATE_STATUSES, {
    description:
      'The status to move to. Allowed: draft → sent | accepted; sent → accepted | declined | expired. Other moves, and converted (use POST /estimates/{id}/convert), answer 409 conflict.',
  }),
});
export const estimateStatusResponse = singleEnvelope('estimate', obj({ id: uuid, status: StringEnum(ESTIMATE_STATUSES) }));
export const estimateConvertBody = obj({
  external_invoice_id: Optional(externalId),
  invoice_number: Optional(documentNumber),
  issue_date: Optional(date),
  due_date: Optional(date),
});
export type EstimateConvertBody = Static<typeof estimateConvertBody>;
export const estimateConvertResponse = obj({ data: obj({ estimate_id: uuid, invoice_id: uuid, invoice_status: Type.String() }) });
export const estimateListQuery = recordListQuery('external_estimate_id', { status: Optional(StringEnum(ESTIMATE_STATUSES)), customer_id: Optional(uuid) });

export const {
  response: estimateResponse,
  listResponse: estimateListResponse,
  operations: estimateOperations,
  routes: estimateRoutes,
} = recordResource({
  service: 'receivables',
  resource: 'estimates',
  one: 'estimate',
  record: estimate,
  create: estimateCreateBody,
  query: estimateListQuery,
  http: { name: 'Estimate', path: '/api/v1/estimates', tag: 'Estimates', module: 'estimates' },
  update: estimateUpdateBody,
  more: () => ({
    'estimates.status': { params: idParams, body: estimateStatusBody, reply: estimateStatusResponse },
    'estimates.convert': { params: idParams, body: estimateConvertBody, reply: estimateConvertResponse },
  }),
  routes: (estimates) => [
    estimates.list('List estimates, newest first; filter by status and customer_id.'),
    estimates.create({
      summary: 'Create a draft estimate (no ledger effect); retry-safe on external_estimate_id.',
      description:
        "The customer must exist in the key's organization and environment (404 otherwise); expiry_date, when given, ≥ issue_date (400); currency USD only (400); line quantities with at most 4 decimals (400).",
    }),
    estimates.get(),
    estimates.update({
      summary: 'Update an estimate: any create field while draft, only metadata after.',
      description: draftUpdateText({
        kind: 'estimate',
        party: 'customer',
        clears: 'expiry_date and memo null clear them',
        after: 'sent (or accepted, declined, expired, converted)',
      }),
    }),
    estimates.route('estimates.status', {
      operationId: 'setEstimateStatus',
      method: 'POST',
      path: '/api/v1/estimates/{id}/status',
      summary: 'Move an estimate: draft → sent | accepted; sent → accepted | declined | expired.',
      description: 'Setting the status it already has returns it unchanged (200, Idempotent-Replayed: true); any other move is 409 conflict.',
      statuses: { 200: '{id, status}.' },
    }),
    estimates.route('estimates.convert', {
      operationId: 'convertEstimate',
      method: 'POST',
      path: '/api/v1/estimates/{id}/convert',
      summary: 'Convert an accepted estimate to a draft invoice (not posted).',
      description:
        "The invoice gets the estimate's customer, lines, currency and memo (not its metadata: the invoice starts with {}). Optional body: external_invoice_id (default estimate-<estimate id>), invoice_number (default the external_estimate_id), " +
        'issue_date (default today, UTC) and due_date (default issue_date + the payment terms of the invoice defaults); due_date ≥ issue_date (400), and a default due date past 9999-12-31 is 400 (send due_date). ' +
        'No body, or {}, takes every default. A second convert returns the same invoice (200, Idempotent-Replayed: true).',
      statuses: { 200: 'The conversion result.' },
    }),
  ],
});
