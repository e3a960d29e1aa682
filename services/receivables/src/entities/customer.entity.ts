import { EntitySchema } from '@mikro-orm/core';
import type { CustomerDto, CustomerStatus, Environment } from '@acct/contracts';

export interface Customer {
  id: string;
  organizationId: string;
  environment: Environment;
  externalCustomerId: string;
  name: string;
  email: string | null;
  status: CustomerStatus;
  createdAt: Date;
}

export const CustomerSchema = new EntitySchema<Customer>({
  name: 'Customer',
  tableName: 'customers',
  properties: {
    id: { type: 'uuid', primary: true },
    organizationId: { type: 'uuid', fieldName: 'organization_id' },
    environment: { type: 'text' },
    externalCustomerId: { type: 'text', fieldName: 'external_customer_id' },
    name: { type: 'text' },
    email: { type: 'text', nullable: true },
    status: { type: 'text' },
    createdAt: { type: 'Date', fieldName: 'created_at' },
  },
});

export function customerDto(c: Customer): CustomerDto {
  return {
    id: c.id,
    external_customer_id: c.externalCustomerId,
    name: c.name,
    email: c.email,
    status: c.status,
    created_at: c.createdAt.toISOString(),
  };
}
