import type { ServiceDefinition } from '@acct/kit';
import { entities } from './entities';
import { migrations } from './migrations';

/**
 * The gateway's store: its schema (API keys, idempotency records, rate buckets). The gateway serves
 * HTTP, not RPC, so it has no handlers to register; main.ts builds the Koa app (app.ts).
 */
export function gatewayService(): Pick<ServiceDefinition, 'name' | 'entities' | 'migrations'> {
  return { name: 'gateway', entities, migrations };
}
