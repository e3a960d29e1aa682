import { email, externalId, name, obj, paginationQuery, uuid, dateTime, singleEnvelope, listEnvelope } from './common';

export interface CustomerCreateBody {
  external_customer_id: string;
  name: string;
  email?: string;
}

export interface CustomerDto {
  id: string;
  external_customer_id: string;
  name: string;
  email: string | null;
  status: 'active';
  created_at: string;
}

export const customerCreateBody = obj({ external_customer_id: externalId, name, email }, ['external_customer_id', 'name']);

export const customer = obj(
  {
    id: uuid,
    external_customer_id: { type: 'string' },
    name: { type: 'string' },
    email: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['active'] },
    created_at: dateTime,
  },
  ['id', 'external_customer_id', 'name', 'email', 'status', 'created_at'],
);

export const customerListQuery = obj({ ...paginationQuery });
export const customerResponse = singleEnvelope('customer', customer);
export const customerListResponse = listEnvelope('customers', customer);
