import { type Static, Type } from '@sinclair/typebox';
import { METADATA_MERGE_TEXT } from '../openapi-texts';
import { recordResource } from '../record-resource';
import { Nullable, StringEnum, dateTime, email, externalId, name, obj, optionalAll, recordListQuery, uuid } from '../schemas/common';
import { metadataInput, metadataRecord } from '../schemas/metadata';

const CUSTOMER_STATUSES = ['active'] as const;
export type CustomerStatus = (typeof CUSTOMER_STATUSES)[number];

export const customerCreateBody = obj({ external_customer_id: externalId, name, email: Type.Optional(email), metadata: Type.Optional(metadataInput) });
export type CustomerCreateBody = Static<typeof customerCreateBody>;
/** PATCH /customers/{id} (API-DECISIONS §11): fields left out keep their value; email null clears it; metadata merges. */
export const customerUpdateBody = obj(optionalAll({ name, email: Nullable(email), metadata: metadataInput }));
export type CustomerUpdateBody = Static<typeof customerUpdateBody>;

export const customer = obj({
  id: uuid,
  external_customer_id: Type.String(),
  name: Type.String(),
  email: Nullable(Type.String()),
  status: StringEnum(CUSTOMER_STATUSES),
  metadata: metadataRecord,
  created_at: dateTime,
  updated_at: dateTime,
});
export type CustomerDto = Static<typeof customer>;

export const customerListQuery = recordListQuery('external_customer_id');
export const {
  response: customerResponse,
  listResponse: customerListResponse,
  operations: customerOperations,
  routes: customerRoutes,
} = recordResource({
  service: 'receivables',
  resource: 'customers',
  one: 'customer',
  record: customer,
  create: customerCreateBody,
  query: customerListQuery,
  http: { name: 'Customer', path: '/api/v1/customers', tag: 'Customers', module: 'customers' },
  update: customerUpdateBody,
  routes: (customers) => [
    customers.list('List customers, newest first.'),
    customers.create({
      summary: 'Create a customer; retry-safe on external_customer_id.',
      description:
        'A repeat with the same external_customer_id and the same name, email and metadata returns the existing customer (200, Idempotent-Replayed: true); with different content it is refused with 409 conflict.',
    }),
    customers.get(),
    customers.update({
      summary: 'Update a customer: any of name, email (null clears it), metadata (merged).',
      description: `Fields left out keep their value; {} changes nothing. ${METADATA_MERGE_TEXT} The external id does not change. Reports show the new name.`,
    }),
  ],
});
