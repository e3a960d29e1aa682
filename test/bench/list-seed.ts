import pg from 'pg';

/**
 * Seeds `rows` customers for one organization's test environment straight into the receivables
 * schema with generate_series (one a minute back from now, external ids `bench-list-<n>`), then
 * ANALYZE; answers the id of the row `depth` deep in list order (newest first, ties by id), the
 * cursor of the deep page, and EXPLAIN ANALYZE of the keyset statement registerReads writes for it.
 */
export async function seedListCustomers(databaseUrl: string, organizationId: string, rows: number, depth: number): Promise<{ ms: number; deepId: string; plan: string }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const started = Date.now();
  try {
    await client.query(`SET search_path = receivables`);
    await client.query(
      `INSERT INTO customers (id, organization_id, environment, external_customer_id, name, email, status, created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid, 'test', 'bench-list-' || g, 'Bench customer ' || g, NULL, 'active', now() - make_interval(mins => g), now() - make_interval(mins => g)
         FROM generate_series(1, $2::int) g`,
      [organizationId, rows],
    );
    await client.query(`VACUUM (ANALYZE) customers`);
    const ms = Date.now() - started;
    const deep = await client.query<{ id: string; at: string }>(
      `SELECT id, created_at::text AS at FROM customers WHERE organization_id = $1 AND environment = 'test' ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
      [organizationId, depth],
    );
    const { id, at } = deep.rows[0]!;
    const plan = await client.query<Record<string, string>>(
      `EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM customers WHERE organization_id = $1 AND environment = 'test' AND (created_at, id) < ($2::timestamptz, $3::uuid)
        ORDER BY created_at DESC, id DESC LIMIT 26`,
      [organizationId, at, id],
    );
    return { ms, deepId: id, plan: plan.rows.map((r) => r['QUERY PLAN']).join('\n') };
  } finally {
    await client.end();
  }
}
