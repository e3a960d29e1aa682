import type { NatsConnection } from 'nats';
import { type Logger, type Orm, RpcServer, type ServiceMetrics } from '@acct/kit';
import { registerCustomerHandlers } from './handlers/customers.handler';

/** Wires every operation of the service; used by main and by the integration tests. */
export function createReceivablesServer(deps: { nc: NatsConnection; prefix: string; orm: Orm; log: Logger; metrics?: ServiceMetrics }): RpcServer {
  const server = new RpcServer(deps.nc, deps.prefix, 'receivables', deps.log, deps.metrics);
  registerCustomerHandlers(server, deps.orm);
  return server;
}
