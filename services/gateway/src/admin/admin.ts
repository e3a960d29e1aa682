import { randomUUID } from 'node:crypto';
import { MODULES, type ModuleName } from '@acct/contracts';
import type { EntityManager } from '@acct/kit';
import { createApiKey } from '../dashboard/keys';
import { ConnectedAppSchema, OrganizationSchema, type ConnectedApp, type Organization } from '../entities';

// The key operations are the dashboard's (one implementation, audited): the CLI calls them as 'admin-cli'.
export { createApiKey, listApiKeys, revokeApiKey, rollApiKey } from '../dashboard/keys';

/** The dashboard's operations. Every function takes the EntityManager it writes through. */

/** An id or key the operator gave does not exist. */
export class AdminNotFound extends Error {}

export async function createOrganization(em: EntityManager, name: string, modules: readonly ModuleName[] = MODULES): Promise<Organization> {
  const org = em.create(OrganizationSchema, { id: randomUUID(), name, enabledModules: [...modules], createdAt: new Date() });
  await em.persistAndFlush(org);
  return org;
}

export async function createConnectedApp(em: EntityManager, organizationId: string, name: string): Promise<ConnectedApp> {
  const org = await em.findOne(OrganizationSchema, { id: organizationId });
  if (!org) throw new AdminNotFound(`organization ${organizationId} not found`);
  const app = em.create(ConnectedAppSchema, { id: randomUUID(), organizationId, name, status: 'active', createdAt: new Date() });
  await em.persistAndFlush(app);
  return app;
}

export async function setModules(em: EntityManager, organizationId: string, enable: ModuleName[], disable: ModuleName[]): Promise<ModuleName[]> {
  const org = await em.findOne(OrganizationSchema, { id: organizationId });
  if (!org) throw new AdminNotFound(`organization ${organizationId} not found`);
  const set = new Set(org.enabledModules);
  enable.forEach((m) => set.add(m));
  disable.forEach((m) => set.delete(m));
  org.enabledModules = MODULES.filter((m) => set.has(m));
  await em.flush();
  return org.enabledModules;
}

export async function setAppStatus(em: EntityManager, connectedAppId: string, status: 'active' | 'disabled'): Promise<ConnectedApp> {
  const app = await em.findOne(ConnectedAppSchema, { id: connectedAppId });
  if (!app) throw new AdminNotFound(`connected app ${connectedAppId} not found`);
  app.status = status;
  await em.flush();
  return app;
}

export interface Bootstrap {
  organization_id: string;
  connected_app_id: string;
  test_key: string;
  live_key: string;
}

/** An organization with one connected app and a test and a live key, in one transaction. */
export const DEV_ORG_NAME = 'Development organization';

/**
 * `npm start`'s key: the development organization and its app are created once; each call issues
 * a fresh test key (keys are stored as hashes, so an earlier one cannot be shown again).
 */
export async function devKey(em: EntityManager): Promise<{ organization_id: string; connected_app_id: string; test_key: string }> {
  return em.transactional(async (tx) => {
    const org = (await tx.findOne(OrganizationSchema, { name: DEV_ORG_NAME }, { orderBy: { createdAt: 'asc' } })) ?? (await createOrganization(tx, DEV_ORG_NAME));
    const app = (await tx.findOne(ConnectedAppSchema, { organizationId: org.id }, { orderBy: { createdAt: 'asc' } })) ?? (await createConnectedApp(tx, org.id, 'Development app'));
    const key = await createApiKey(tx, app.id, 'test');
    return { organization_id: org.id, connected_app_id: app.id, test_key: key.key };
  });
}

export async function bootstrap(em: EntityManager, name = DEV_ORG_NAME): Promise<Bootstrap> {
  return em.transactional(async (tx) => {
    const org = await createOrganization(tx, name);
    const app = await createConnectedApp(tx, org.id, `${name} app`);
    const test = await createApiKey(tx, app.id, 'test');
    const live = await createApiKey(tx, app.id, 'live');
    return { organization_id: org.id, connected_app_id: app.id, test_key: test.key, live_key: live.key };
  });
}
