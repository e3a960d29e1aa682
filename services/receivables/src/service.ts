import { RpcClient, type ServiceDefinition } from '@acct/kit';
import { chainVerifierWorker, registerOnBooks } from '@acct/posting';
import { entities } from './entities';
import { registerCustomerHandlers } from './handlers/customers.handler';
import { registerEstimateHandlers, termsFromDocuments } from './handlers/estimates.handler';
import { registerEventHandlers } from './handlers/events.handler';
import { registerInvoiceHandlers } from './handlers/invoices.handler';
import { registerPaymentHandlers } from './handlers/payments.handler';
import { registerPayoutHandlers } from './handlers/payouts.handler';
import { migrations } from './migrations';
import { type ReceivablesConfig, loadReceivablesConfig } from './config';
import { registerProcessorHandlers } from './handlers/processor.handler';
import { registerBooksLockHandlers } from './handlers/books-lock.handler';

/** How long a conversion waits for the documents service's invoice defaults. */
const SETTINGS_TIMEOUT_MS = 3000;
/** How long a lock date PUT waits for payables' copy to hold it (its feed applies it after payables' postings in flight). */
const BOOKS_LOCK_COPY_TIMEOUT_MS = 5000;

/** The receivables service: customers, invoices, payments, estimates, payouts, inbound events. */
export function receivablesService(opts: { config?: ReceivablesConfig } = {}): ServiceDefinition {
  let config = opts.config;
  // Read when the service is wired (not when this module loads, which migrate does too).
  const cfg = () => (config ??= loadReceivablesConfig());
  return {
    name: 'receivables',
    entities,
    migrations,
    register(wiring) {
      // Estimate conversions ask documents for the invoice defaults' payment terms.
      const terms = termsFromDocuments(new RpcClient(wiring.nc, wiring.prefix, SETTINGS_TIMEOUT_MS, wiring.metrics, wiring.log));
      registerOnBooks(wiring, [
        registerCustomerHandlers,
        registerInvoiceHandlers,
        registerPaymentHandlers,
        (server, books) => registerEstimateHandlers(server, books, terms),
        registerPayoutHandlers,
        registerEventHandlers,
        (server, books) => registerProcessorHandlers(server, books, cfg()),
        (server, books) => registerBooksLockHandlers(server, books, new RpcClient(wiring.nc, wiring.prefix, BOOKS_LOCK_COPY_TIMEOUT_MS, wiring.metrics, wiring.log)),
      ]);
    },
    // The scheduled verification of its journal's hash chains (ledger_chain_* metrics).
    workers: (wiring) => [chainVerifierWorker(wiring)],
  };
}
