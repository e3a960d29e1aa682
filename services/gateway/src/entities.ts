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
  createdAt: Date;
  revokedAt: Date | null;
}

export const OrganizationSchema = new EntitySchema<Organization>({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: { type: 'uuid', primary: true },
    name: { type: 'text' },
    enabledModules: { type: 'text[]', fieldName: 'enabled_modules' },
    createdAt: { type: 'Date', fieldName: 'created_at', onCreate: () => new Date() },
  },
});

export const ConnectedAppSchema = new EntitySchema<ConnectedApp>({
  name: 'ConnectedApp',
  tableName: 'connected_apps',
  properties: {
    id: { type: 'uuid', primary: true },
    organizationId: { type: 'uuid', fieldName: 'organization_id' },
    name: { type: 'text' },
    status: { type: 'text' },
    createdAt: { type: 'Date', fieldName: 'created_at', onCreate: () => new Date() },
  },
});

export const ApiKeySchema = new EntitySchema<ApiKey>({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: { type: 'uuid', primary: true },
    connectedAppId: { type: 'uuid', fieldName: 'connected_app_id' },
    organizationId: { type: 'uuid', fieldName: 'organization_id' },
    environment: { type: 'text' },
    keyPrefix: { type: 'text', fieldName: 'key_prefix' },
    keyHash: { type: 'text', fieldName: 'key_hash' },
    createdAt: { type: 'Date', fieldName: 'created_at', onCreate: () => new Date() },
    revokedAt: { type: 'Date', fieldName: 'revoked_at', nullable: true },
  },
});

export const entities = [OrganizationSchema, ConnectedAppSchema, ApiKeySchema];
