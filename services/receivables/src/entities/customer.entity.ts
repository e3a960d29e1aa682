import { EntitySchema } from '@mikro-orm/core';
import type { CustomerDto, CustomerStatus } from '@acct/contracts';
import { type Scoped, scopedColumns } from '@acct/kit';

export interface Customer extends Scoped {
  externalCustomerId: string;
  name: string;
  email: string | null;
  status: CustomerStatus;
}

export const CustomerSchema = new EntitySchema<Customer>({
  name: 'Customer',
  tableName: 'customers',
  properties: {
    ...scopedColumns,
    externalCustomerId: { type: 'text', fieldName: 'external_customer_id' },
    name: { type: 'text' },
    email: { type: 'text', nullable: true },
    status: { type: 'text' },
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
