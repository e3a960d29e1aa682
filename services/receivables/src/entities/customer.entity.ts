import type { CustomerDto, CustomerStatus, Metadata } from '@acct/contracts';
import { type Scoped, columns, scopedEntity } from '@acct/kit';

export interface Customer extends Scoped {
  externalCustomerId: string;
  name: string;
  email: string | null;
  status: CustomerStatus;
  metadata: Metadata;
  /** Grows with every change (reporting keeps the copy with the newest). */
  updatedAt: Date;
}

export const CustomerSchema = scopedEntity<Customer>('Customer', 'customers', {
  ...columns({ externalCustomerId: 'text', name: 'text', email: 'text?', status: 'text', metadata: 'json', updatedAt: 'Date' }),
});

export function customerDto(c: Customer): CustomerDto {
  return {
    id: c.id,
    external_customer_id: c.externalCustomerId,
    name: c.name,
    email: c.email,
    status: c.status,
    metadata: c.metadata,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}
