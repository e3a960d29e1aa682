import { EntitySchema } from '@mikro-orm/core';
import type { Environment, ModuleName } from '@acct/contracts';

export interface Organization {
  id: string;
  name: string;
  enabledModules: ModuleName[];
  createdAt: Date;
}

export interface ConnectedApp {
  id: string;
  organizationId: string;
  name: string;
  status: 'active' | 'disabled';
  createdAt: Date;
}

export interface ApiKey {
  id: string;
  connectedAppId: string;
  organizationId: string;
  environment: Environment;
  keyPrefix: string;
  keyHash: string;
  /** The key's last four characters (null for keys made before they were kept). */
  keyLast4: string | null;
  createdAt: Date;
  revokedAt: Date | null;
  /** Set by a roll: the key stops working then (401 like a revoked one). */
  expiresAt: Date | null;
  /** The last time a replica loaded the key for a request (at most once a minute, key-store.ts). */
  lastUsedAt: Date | null;
}

/** Columns the gateway's tables share. */
const id = { type: 'uuid', primary: true } as const;
const organizationId = { type: 'uuid', fieldName: 'organization_id' } as const;
const createdAt = { type: 'Date', fieldName: 'created_at', onCreate: () => new Date() } as const;
const text = { type: 'text' } as const;

export const OrganizationSchema = new EntitySchema<Organization>({
  name: 'Organization',
  tableName: 'organizations',
  properties: { id, name: text, enabledModules: { type: 'text[]', fieldName: 'enabled_modules' }, createdAt },
});

export const ConnectedAppSchema = new EntitySchema<ConnectedApp>({
  name: 'ConnectedApp',
  tableName: 'connected_apps',
  properties: { id, organizationId, name: text, status: text, createdAt },
});

export const ApiKeySchema = new EntitySchema<ApiKey>({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id,
    connectedAppId: { type: 'uuid', fieldName: 'connected_app_id' },
    organizationId,
    environment: text,
    keyPrefix: { type: 'text', fieldName: 'key_prefix' },
    keyHash: { type: 'text', fieldName: 'key_hash' },
    keyLast4: { type: 'text', fieldName: 'key_last4', nullable: true },
    createdAt,
    revokedAt: { type: 'Date', fieldName: 'revoked_at', nullable: true },
    expiresAt: { type: 'Date', fieldName: 'expires_at', nullable: true },
    lastUsedAt: { type: 'Date', fieldName: 'last_used_at', nullable: true },
  },
});

export const entities = [OrganizationSchema, ConnectedAppSchema, ApiKeySchema];
