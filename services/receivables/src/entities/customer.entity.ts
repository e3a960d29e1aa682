import type { CustomerDto, CustomerStatus } from '@acct/contracts';
import { type Scoped, columns, scopedEntity } from '@acct/kit';

export interface Customer extends Scoped {
  externalCustomerId: string;
  name: string;
  email: string | null;
  status: CustomerStatus;
}

export const CustomerSchema = scopedEntity<Customer>('Customer', 'customers', {
  ...columns({ externalCustomerId: 'text', name: 'text', email: 'text?', status: 'text' }),
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
