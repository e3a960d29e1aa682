import type { NatsConnection } from 'nats';
import { type Logger, type Orm, Outbox, RpcServer, type ServiceMetrics } from '@acct/kit';
import { Books } from '@acct/posting';
import { registerCustomerHandlers } from './handlers/customers.handler';
import { registerEstimateHandlers } from './handlers/estimates.handler';
import { registerEventHandlers } from './handlers/events.handler';
import { registerInvoiceHandlers } from './handlers/invoices.handler';
import { registerPaymentHandlers } from './handlers/payments.handler';
import { registerPayoutHandlers } from './handlers/payouts.handler';

export interface ReceivablesDeps {
  nc: NatsConnection;
  prefix: string;
  orm: Orm;
  log: Logger;
  metrics?: ServiceMetrics;
  outbox?: Outbox;
}

/** Wires every operation of the service; used by main and by the integration tests. */
export function createReceivablesServer(deps: ReceivablesDeps): { server: RpcServer; outbox: Outbox; books: Books } {
  const outbox = deps.outbox ?? new Outbox(deps.nc, deps.orm, deps.log, deps.metrics);
  const books = new Books(deps.orm, outbox, deps.prefix, 'receivables');
  const server = new RpcServer(deps.nc, deps.prefix, 'receivables', deps.log, deps.metrics);
  registerCustomerHandlers(server, deps.orm);
  registerInvoiceHandlers(server, books);
  registerPaymentHandlers(server, books);
  registerEstimateHandlers(server, books);
  registerPayoutHandlers(server, books);
  registerEventHandlers(server, books);
  return { server, outbox, books };
}
