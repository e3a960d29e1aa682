import { Optional, type Static, Type } from '@sinclair/typebox';
import { recordResource } from '../record-resource';
import { StringEnum, cents, date, dateTime, externalId, name, obj, recordListQuery, uuid } from '../schemas/common';
import { currency } from '../schemas/line-items';
import { metadataInput, metadataRecord } from '../schemas/metadata';

/** Processor payouts: a payment processor's settlement of the clearing account. */
const PAYOUT_STATUSES = ['created'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];
export const payoutCreateBody = obj({
  external_payout_id: externalId,
  processor: name,
  payout_date: date,
  gross_cents: cents,
  fee_cents: cents,
  net_cents: cents,
  currency: Optional(currency),
  metadata: Optional(metadataInput),
});
export const payout = obj({
  id: uuid,
  external_payout_id: Type.String(),
  processor: Type.String(),
  payout_date: date,
  gross_cents: Type.Integer(),
  fee_cents: Type.Integer(),
  net_cents: Type.Integer(),
  currency: Type.String(),
  status: StringEnum(PAYOUT_STATUSES),
  metadata: metadataRecord,
  created_at: dateTime,
});
export type PayoutDto = Static<typeof payout>;

export const {
  response: payoutResponse,
  listResponse: payoutListResponse,
  operations: payoutOperations,
  routes: payoutRoutes,
} = recordResource({
  service: 'receivables',
  resource: 'payouts',
  one: 'processor_payout',
  record: payout,
  create: payoutCreateBody,
  query: recordListQuery('external_payout_id', { processor: Optional(name) }),
  http: { name: 'Processor payout', path: '/api/v1/processor-payouts', tag: 'Processor payouts', module: 'payments' },
  routes: (payouts) => [
    payouts.list('List processor payouts, newest first; filter by processor.', 'A page of payouts.'),
    payouts.create({
      summary: 'Record a processor payout (clearing); retry-safe on external_payout_id.',
      description:
        'gross_cents − fee_cents must equal net_cents (400 validation_failed, issue net_mismatch); currency USD only (400). Dr Operating bank net, Dr Processor fees fee / Cr Processor clearing gross, dated payout_date.',
    }),
    payouts.get(undefined, 'The payout.'),
  ],
});
