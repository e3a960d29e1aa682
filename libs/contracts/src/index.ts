export * from './errors';
export * from './envelope';
export * from './limits';
export * from './dates';
export * from './subjects';
export * from './bus-permissions';
export * from './manifest';
export * from './rpc-catalogue';
export * from './routes';
export { ROUTES, findRoute } from './api/index';
export * from './openapi';
export * from './schemas/common';
export type { LineItemInput } from './schemas/line-items';
export * from './schemas/metadata';
export * as schemas from './schemas/index';
export type * from './api/gateway';
export type * from './api/customers';
export type * from './api/invoices';
export type * from './api/payments';
export type * from './api/estimates';
export type * from './api/payouts';
export type * from './api/events';
export type * from './api/payment-processor';
export type * from './api/vendors';
export type * from './api/bills';
export type * from './api/vendor-payments';
export type * from './api/webhook-endpoints';
export type * from './api/ledger';
export type * from './api/documents';
export type * from './api/document-shares';
export type * from './api/document-renders';
export type * from './api/settings';
export type * from './api/books-lock';
export type * from './api/statements';
export { INBOUND_ACTIVE, INBOUND_PLANNED, INBOUND_STORED_ONLY } from './api/events';
export { allocations_max } from './api/vendor-payments';
export { LEDGER_CHAIN_OPERATIONS, LEDGER_CHAIN_TIMEOUT_MS, LEDGER_VERIFICATION_TIMEOUT_MS } from './api/ledger';
export {
  WEBHOOK_DEFAULT_EVENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_SECRET_OVERLAP_HOURS_DEFAULT,
  WEBHOOK_SECRET_OVERLAP_HOURS_MAX,
  webhook_url_length_max,
} from './api/webhook-endpoints';
export { DOCUMENT_CONTENT_TYPES } from './api/documents';
export { DEFAULT_ESTIMATE_VALIDITY_DAYS, DEFAULT_PAYMENT_TERMS_DAYS } from './api/settings';
export { BOOKS_LOCK_CHANGES_LISTED, BOOKS_LOCK_COPY_OPERATIONS } from './api/books-lock';
export { COLUMN_KINDS, STATEMENT_COLUMNS_MAX } from './api/statements';
export * from './validate';
export * from './events';
export * from './canonical';
export * from './bad-input';
export { rpcRequestProblem } from './rpc-request';
