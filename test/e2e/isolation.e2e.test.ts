import { ROUTES, type RouteDef } from '@acct/contracts';
import { sampleValid, type JsonSchema } from '../support/schema-arbitraries';
import { FIXTURES, collectionOf, paramsOf } from './fixtures';
import { client } from './harness';
import { type Api, type ReceivablesE2E, expectError, expectStatus, startReceivablesE2E } from './receivables.helpers';

/**
 * The isolation matrix, generated from the route table: a record of one organization and
 * environment is invisible to every other scope. Every route with a path parameter, called with the
 * id of the first organization's record, answers 404 not_found to another organization's test key
 * and to the same organization's live key (and changes nothing); every list route called with those
 * keys leaves the first organization's records out, also when filtered by one of its ids; and a
 * cursor (starting_after, ending_before) naming one of its list items is a 400 naming the cursor.
 */
// Keyed routes only: a keyless one (a signed webhook input) has no scope of a key to cross.
const withParams = ROUTES.filter((r) => r.auth && paramsOf(r.path).length > 0);
const lists = ROUTES.filter((r) => r.method === 'GET' && r.auth && paramsOf(r.path).length === 0 && hasPagination(r));

function hasPagination(r: RouteDef): boolean {
  return r.responses.some((x) => Object.prototype.hasOwnProperty.call((x.schema.properties as JsonSchema | undefined) ?? {}, 'pagination'));
}

/** Query parameters that take a record id (customer_id, invoice_id, ...). */
function idFilters(r: RouteDef): string[] {
  const props = (r.query?.properties as Record<string, JsonSchema> | undefined) ?? {};
  return Object.entries(props)
    .filter(([, s]) => s.format === 'uuid')
    .map(([k]) => k);
}

describe('isolation matrix (from the route table)', () => {
  let t: ReceivablesE2E;
  /** The intruders: [name, client]. */
  let intruders: [string, Api][];
  /** The first organization's (test key) record per collection, and every id it owns. */
  const mine: Record<string, string> = {};
  /** The other path parameters of the first organization's record per collection ({delivery_id}). */
  const mineParams: Record<string, Record<string, string>> = {};
  /** Each intruder's own record per collection. */
  const theirs: Record<string, Record<string, string>> = {};
  const mineAll = new Set<string>();
  /** The first item of each of the owner's lists (by path), for the cursors. */
  const firstOf: Record<string, string> = {};
  /** Ids of the owner's records by field name (customer_id → [...]), for the list filters. */
  const mineByField: Record<string, string[]> = {};
  let cases = 0;

  beforeAll(async () => {
    t = await startReceivablesE2E('Isolation org');
    intruders = [
      ['another organization (test key)', t.otherApi],
      ['the same organization (live key)', client(t.e2e.base, t.keys.live_key)],
    ];
    // Every scope gets records of every kind, so that lists are not trivially empty.
    for (const [collection, f] of Object.entries(FIXTURES)) {
      mine[collection] = await f.create(t.api);
      if (f.params) mineParams[collection] = await f.params(t.api, mine[collection]);
      for (const [who, api] of intruders) (theirs[who] ??= {})[collection] = await f.create(api);
    }
    for (const r of lists) {
      const page = await t.api('GET', `${r.path}?limit=100`);
      expectStatus(page, 200);
      if (page.json.data[0]) firstOf[r.path] = page.json.data[0].id;
      for (const item of page.json.data as Record<string, unknown>[]) {
        mineAll.add(item.id as string);
        for (const [k, v] of Object.entries(item)) if (k.endsWith('_id') && typeof v === 'string') (mineByField[k] ??= []).push(v);
      }
    }
    for (const id of Object.values(mine)) mineAll.add(id);
  });
  afterAll(async () => {
    console.log(`isolation: ${cases} cases (${withParams.length} routes with an id × ${intruders?.length ?? 0} keys, ${lists.length} list routes)`);
    await t?.e2e.stop();
  });

  it('has a fixture for every route with a path parameter', () => {
    const missing = withParams
      .filter((r) => !FIXTURES[collectionOf(r.path)])
      .map((r) => `${r.method} ${r.path} (add a factory for ${collectionOf(r.path)} to FIXTURES in test/e2e/fixtures.ts)`);
    const oddParams = withParams
      .filter((r) => paramsOf(r.path).length !== 1 && !FIXTURES[collectionOf(r.path)]?.params)
      .map((r) => `${r.method} ${r.path}: more than one path parameter; give its fixture params() in test/e2e/fixtures.ts`);
    expect([...missing, ...oddParams]).toEqual([]);
    expect(withParams.length).toBeGreaterThan(0);
    // Actions that move money are in the matrix: voiding another scope's invoice is 404 and changes nothing (API-DECISIONS §11).
    expect(withParams.map((r) => `${r.method} ${r.path}`)).toEqual(expect.arrayContaining(['POST /api/v1/invoices/{id}/post', 'POST /api/v1/invoices/{id}/void']));
    expect(lists.length).toBeGreaterThan(0);
  });

  it('answers 404 not_found to another scope for every route with an {id}, and changes nothing', async () => {
    for (const route of withParams) {
      const collection = collectionOf(route.path);
      const id = mine[collection];
      if (!id) throw new Error(`no fixture for ${route.method} ${route.path}`);
      // The first parameter is the record's id, the others (a delivery of the endpoint) its own.
      const path = route.path.replace(/\{[^}]+\}/, id).replace(/\{([^}]+)\}/g, (_, name: string) => mineParams[collection]?.[name] ?? `{${name}}`);
      const body = route.body ? sampleValid(route.body) : undefined;
      const reader = ROUTES.find((r) => r.method === 'GET' && r.path === `${collection}/{${paramsOf(route.path)[0]}}`);
      const before = reader ? await t.api('GET', `${collection}/${id}`) : undefined;
      if (before) expectStatus(before, 200);
      for (const [who, api] of intruders) {
        cases++;
        const r = await api(route.method, path, body);
        try {
          expectError(r, 404, 'not_found');
        } catch (e) {
          throw new Error(`${route.method} ${route.path} as ${who}: ${(e as Error).message}`, { cause: e });
        }
        // Below a record of its own, the first organization's sub-record (a delivery) is not there either.
        if (paramsOf(route.path).length > 1) {
          cases++;
          const own = theirs[who]![collection]!;
          const r2 = await api(route.method, path.replace(id, own), body);
          try {
            expectError(r2, 404, 'not_found');
          } catch (e) {
            throw new Error(`${route.method} ${route.path} as ${who} under its own record: ${(e as Error).message}`, { cause: e });
          }
        }
      }
      if (before) expect((await t.api('GET', `${collection}/${id}`)).json).toEqual(before.json);
      // The owner's own read works: the 404s above are about scope, not a bad request.
      if (route.method === 'GET') expectStatus(await t.api('GET', path), 200);
    }
  });

  it("refuses a PATCH of an own draft that names another scope's customer or vendor (404 on the field), changing nothing", async () => {
    const invoice = mine['/api/v1/invoices']!;
    const bill = mine['/api/v1/bills']!;
    const estimate = mine['/api/v1/estimates']!;
    for (const [who, api] of intruders) {
      const theirs = async (collection: string) => (await api('GET', `${collection}?limit=1`)).json.data[0].id as string;
      const [customer, vendor] = [await theirs('/api/v1/customers'), await theirs('/api/v1/vendors')];
      for (const [path, field, id] of [
        [`/api/v1/invoices/${invoice}`, 'customer_id', customer],
        [`/api/v1/estimates/${estimate}`, 'customer_id', customer],
        [`/api/v1/bills/${bill}`, 'vendor_id', vendor],
      ] as const) {
        cases++;
        const before = await t.api('GET', path);
        const r = await t.api('PATCH', path, { [field]: id });
        try {
          expectError(r, 404, 'not_found');
          expect(r.json.error.details[0].field).toBe(`/${field}`);
        } catch (e) {
          throw new Error(`PATCH ${path} naming ${who}'s ${field}: ${(e as Error).message}`, { cause: e });
        }
        expect((await t.api('GET', path)).json).toEqual(before.json);
      }
    }
  });

  it('leaves the first organization out of every list route of another scope, filtered or not', async () => {
    expect(mineAll.size).toBeGreaterThan(0);
    for (const route of lists) {
      const own = await t.api('GET', `${route.path}?limit=100`);
      const ownFixture = mine[route.path];
      if (ownFixture) expect(own.json.data.map((x: { id: string }) => x.id)).toContain(ownFixture);
      for (const [who, api] of intruders) {
        const queries = ['limit=100', ...idFilters(route).flatMap((f) => (mineByField[f] ?? []).slice(0, 1).map((v) => `limit=100&${f}=${v}`))];
        for (const q of queries) {
          cases++;
          const r = await api('GET', `${route.path}?${q}`);
          expectStatus(r, 200);
          const ids: string[] = r.json.data.map((x: { id: string }) => x.id);
          const leaked = ids.filter((x) => mineAll.has(x));
          expect({ route: `${route.path}?${q}`, who, leaked }).toEqual({ route: `${route.path}?${q}`, who, leaked: [] });
          if (q.includes('_id=')) expect({ route: `${route.path}?${q}`, who, ids }).toEqual({ route: `${route.path}?${q}`, who, ids: [] });
          // The intruder's own records are there: the list works, it just is not ours.
          if (q === 'limit=100' && ownFixture) expect(ids.length).toBeGreaterThan(0);
        }
      }
    }
  });

  it('refuses, with 400 naming the parameter, a cursor of the first organization on every list route of another scope', async () => {
    for (const route of lists) {
      const id = firstOf[route.path];
      if (!id) throw new Error(`the owner's ${route.path} is empty: no cursor to try`);
      // The owner's own cursor works.
      expectStatus(await t.api('GET', `${route.path}?starting_after=${id}`), 200);
      for (const [who, api] of intruders) {
        for (const param of ['starting_after', 'ending_before']) {
          cases++;
          const r = await api('GET', `${route.path}?${param}=${id}`);
          try {
            expectError(r, 400, 'validation_failed');
            expect(r.json.error.details.map((d: { field: string }) => d.field)).toEqual([param]);
          } catch (e) {
            throw new Error(`${route.path}?${param} as ${who}: ${(e as Error).message}`, { cause: e });
          }
        }
      }
    }
  });
});
