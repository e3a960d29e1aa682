import type { ServiceDefinition } from '@acct/kit';
import { booksLockFeedWorker, chainVerifierWorker, registerOnBooks } from '@acct/posting';
import { entities } from './entities';
import { registerBillHandlers } from './handlers/bills.handler';
import { registerVendorPaymentHandlers } from './handlers/vendor-payments.handler';
import { registerVendorHandlers } from './handlers/vendors.handler';
import { registerBooksLockApplyHandler } from './handlers/books-lock.handler';
import { migrations } from './migrations';

/**
 * The payables service: vendors, bills, vendor payments with their allocations; its copy of the
 * books' lock date is fed by the books_lock.updated event (worker); receivables' PUT waits for it
 * (books_lock.apply).
 */
export function payablesService(): ServiceDefinition {
  return {
    name: 'payables',
    entities,
    migrations,
    register: (wiring) => registerOnBooks(wiring, [registerVendorHandlers, registerBillHandlers, registerVendorPaymentHandlers, registerBooksLockApplyHandler]),
    workers: (wiring) => [booksLockFeedWorker(wiring, 'payables'), chainVerifierWorker(wiring)],
  };
}
