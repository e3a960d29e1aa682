import { type Static, Type } from '@sinclair/typebox';
import { recordResource } from '../record-resource';
import { Nullable, StringEnum, dateTime, email, externalId, name, lookupBy, obj, paginationQuery, uuid } from '../schemas/common';

const CUSTOMER_STATUSES = ['active'] as const;
export type CustomerStatus = (typeof CUSTOMER_STATUSES)[number];

export const customerCreateBody = obj({ external_customer_id: externalId, name, email: Type.Optional(email) });
export type CustomerCreateBody = Static<typeof customerCreateBody>;

export const customer = obj({
  id: uuid,
  external_customer_id: Type.String(),
  name: Type.String(),
  email: Nullable(Type.String()),
  status: StringEnum(CUSTOMER_STATUSES),
  created_at: dateTime,
});
export type CustomerDto = Static<typeof customer>;

export const customerListQuery = obj({ ...paginationQuery, ...lookupBy('external_customer_id') });
export const {
  response: customerResponse,
  listResponse: customerListResponse,
  operations: customerOperations,
  routes: customerRoutes,
} = recordResource({
  service: 'receivables',
  resource: 'customers',
  one: 'customer',
  many: 'customers',
  record: customer,
  create: customerCreateBody,
  query: customerListQuery,
  http: { name: 'Customer', path: '/api/v1/customers', tag: 'Customers', module: 'customers' },
  routes: (customers) => [
    customers.list('List customers, newest first.'),
    customers.create({
      summary: 'Create a customer; retry-safe on external_customer_id.',
      description:
        'A repeat with the same external_customer_id and the same name and email returns the existing customer (200, Idempotent-Replayed: true); with different content it is refused with 409 conflict.',
    }),
    customers.get(),
  ],
});
