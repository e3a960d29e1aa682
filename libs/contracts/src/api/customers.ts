import { type Static, Type } from '@sinclair/typebox';
import { operations, recordOperations } from '../operations';
import { type RouteDef, recordRoutes } from '../routes';
import { Nullable, StringEnum, dateTime, email, externalId, listEnvelope, name, obj, paginationQuery, singleEnvelope, uuid } from '../schemas/common';

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

export const customerListQuery = obj({ ...paginationQuery });
export const customerResponse = singleEnvelope('customer', customer);
export const customerListResponse = listEnvelope('customers', customer);

export const customerOperations = operations('receivables', {
  ...recordOperations('customers', { create: customerCreateBody, list: customerListQuery, one: customerResponse, page: customerListResponse }),
});

const customers = recordRoutes(customerOperations, { resource: 'customers', name: 'Customer', path: '/api/v1/customers', tag: 'Customers', module: 'customers' });
export const customerRoutes: RouteDef[] = [
  customers.list('List customers, newest first.'),
  customers.create({
    summary: 'Create a customer; retry-safe on external_customer_id.',
    description:
      'A repeat with the same external_customer_id and the same name and email returns the existing customer (200, Idempotent-Replayed: true); with different content it is refused with 409 conflict.',
  }),
  customers.get(),
];
