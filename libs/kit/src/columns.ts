import { BigIntType, EntitySchema, type EntitySchemaMetadata } from '@mikro-orm/core';
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

type ColumnType = 'text' | 'uuid' | 'date' | 'money' | 'json' | 'boolean' | 'Date';

/** A column in short: its type ('date' a calendar date kept as 'YYYY-MM-DD', 'Date' a timestamptz, 'money' cents), `?` when nullable. */
export type ColumnSpec = ColumnType | `${ColumnType}?`;

type ColumnProperty = { type: string | BigIntType<'number'>; fieldName: string; columnType?: string; nullable?: boolean };

const typeOf = (t: ColumnType): Omit<ColumnProperty, 'fieldName'> => (t === 'money' ? moneyColumn() : t === 'date' ? { type: 'string', columnType: 'date' } : { type: t });

/**
 * EntitySchema properties from short specs, one line per entity instead of one per column: the
 * column is the property's name in snake_case (externalBillId → external_bill_id), as the
 * migrations name them. A name that does not follow the rule (is_1099_eligible) is written out.
 */
export function columns<K extends string>(spec: Record<K, ColumnSpec>): Record<K, ColumnProperty> {
  const out = {} as Record<K, ColumnProperty>;
  for (const [name, s] of Object.entries(spec) as [K, ColumnSpec][]) {
    const nullable = s.endsWith('?');
    const fieldName = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    out[name] = { ...typeOf(s.replace('?', '') as ColumnType), fieldName, ...(nullable ? { nullable: true } : {}) };
  }
  return out;
}

type Properties<E> = NonNullable<EntitySchemaMetadata<E>['properties']>;

/** The EntitySchema of a scoped table: the scoped columns (scopedColumns), then the entity's own. */
export function scopedEntity<E extends Scoped>(name: string, tableName: string, properties: Omit<Properties<E>, keyof Scoped>): EntitySchema<E> {
  return new EntitySchema<E>({ name, tableName, properties: { ...scopedColumns, ...properties } as unknown as Properties<E> });
}
