/** What tests import as `@acct/testing`. */
export * from './base';
export { pdfTextOf } from './pdf-text';
export { type FreezableProxy, startFreezableProxy } from './freezable-proxy';
export { CHROMIUM_ARGS, chromiumExecutable } from './chromium';
export * from './service';
export { bookedCents, entryLines, payoutSource, postingLine } from './ledger';
export { type ChainTampering, type Tamper, chainTamperings } from './chain-tampering';
export { expectRelayHeals } from './outbox';
export { withBatchSpies, withStatementLog } from './spies';
export { type AdminCliRun, runAdminCli } from './admin-cli';
export { outcome, payablesCalls } from './payables-calls';
export { serviceDefinition } from './services';
export { type TestOrm, migratedOrm } from './orm';
export { oneLineBill, oneLineInvoice, partlyPaidInvoice, paymentOf, vendorPaymentOf } from './dtos';
export { type NatsWithUsers, startNatsWithUsers } from './own-nats';
