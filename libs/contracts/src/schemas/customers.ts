import { type Static, Type } from '@sinclair/typebox';
import { Nullable, StringEnum, dateTime, email, externalId, listEnvelope, name, obj, paginationQuery, singleEnvelope, uuid } from './common';

export const CUSTOMER_STATUSES = ['active'] as const;
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
export type CustomerListQuery = Static<typeof customerListQuery>;
export const customerResponse = singleEnvelope('customer', customer);
export const customerListResponse = listEnvelope('customers', customer);
