import { BigIntType } from '@mikro-orm/core';
import type { Environment } from '@acct/contracts';

/** The columns every scoped record of a service has (id, tenancy, creation time), for EntitySchema properties. */
export const scopedColumns = {
  id: { type: 'uuid', primary: true },
  organizationId: { type: 'uuid', fieldName: 'organization_id' },
  environment: { type: 'text' },
  createdAt: { type: 'Date', fieldName: 'created_at' },
} as const;

export interface Scoped {
  id: string;
  organizationId: string;
  environment: Environment;
  createdAt: Date;
}

/** A bigint column of cents, read back as a JS number (amounts are safe integers). */
export const moneyColumn = () => ({ type: new BigIntType('number') });
