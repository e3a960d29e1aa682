import { createApiKey, createConnectedApp, createOrganization, openGatewayOrm, ConnectedAppSchema, OrganizationSchema } from '@acct/gateway';

export const DEV_ORG_NAME = 'Development organization';

/**
 * The development organization is created once; every `npm start` issues it a fresh test key
 * (keys are stored as hashes, so an earlier one cannot be shown again).
 */
export async function bootstrapDevKey(databaseUrl: string): Promise<{ organization_id: string; connected_app_id: string; test_key: string }> {
  const orm = await openGatewayOrm(databaseUrl, 2);
  try {
    return await orm.em.fork().transactional(async (em) => {
      const org = (await em.findOne(OrganizationSchema, { name: DEV_ORG_NAME }, { orderBy: { createdAt: 'asc' } })) ?? (await createOrganization(em, DEV_ORG_NAME));
      const app =
        (await em.findOne(ConnectedAppSchema, { organizationId: org.id }, { orderBy: { createdAt: 'asc' } })) ??
        (await createConnectedApp(em, org.id, 'Development app'));
      const key = await createApiKey(em, app.id, 'test');
      return { organization_id: org.id, connected_app_id: app.id, test_key: key.key };
    });
  } finally {
    await orm.close(true);
  }
}
