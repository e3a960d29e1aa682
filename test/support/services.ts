import { join } from 'node:path';
import { SERVICE_MANIFEST, type ServiceName } from '@acct/contracts';
import type { MigrationDef, ServiceDefinition } from '@acct/kit';

/** What a service's Postgres schema is made of: enough to open, migrate and check it. */
export type ServiceStore = Pick<ServiceDefinition, 'name' | 'entities' | 'migrations'>;

const ROOT = join(__dirname, '..', '..');

/** `webhook-dispatcher` → `webhookDispatcherService`: the export every service.ts has. */
export function factoryName(name: ServiceName): string {
  return `${name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase())}Service`;
}

/**
 * The definition of a service by its manifest name, as a test starts it in-process: what its folder
 * exports by the layout's convention (services/<name>/src/service.ts exports `<name>Service(opts)`).
 * A test across services names the service, never its files, and then talks to it over the RPC
 * catalogue (startServiceForTest's call and ok).
 */
export function serviceDefinition(name: ServiceName, opts?: unknown): ServiceDefinition {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(join(ROOT, 'services', name, 'src', 'service')) as Record<string, unknown>;
  const factory = mod[factoryName(name)];
  if (typeof factory !== 'function') throw new Error(`services/${name}/src/service.ts does not export ${factoryName(name)}()`);
  return (factory as (o?: unknown) => ServiceDefinition)(opts);
}

/** A service's store (see serviceDefinition), so a test over the manifest needs no list of its own. */
export function serviceOf(name: ServiceName): ServiceStore {
  return serviceDefinition(name);
}

export const MANIFEST_NAMES: ServiceName[] = SERVICE_MANIFEST.map((m) => m.name);

/** The SQL a migration runs, whatever its style (it is only collected, never executed). */
export async function migrationSql(def: MigrationDef): Promise<string> {
  const m = new def.class({}, { get: () => undefined });
  await m.up();
  return m
    .getQueries()
    .map((q) => (typeof q === 'string' ? q : JSON.stringify(q)))
    .join(';\n');
}
