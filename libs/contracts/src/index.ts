export * from './errors';
export * from './envelope';
export * from './limits';
export * from './dates';
export * from './subjects';
export * from './manifest';
export * from './rpc-catalogue';
export * from './routes';
export * from './openapi';
export * from './schemas/common';
export * as schemas from './schemas/index';
export type { CustomerCreateBody, CustomerDto, CustomerListQuery, CustomerStatus } from './schemas/customers';
export { CUSTOMER_STATUSES } from './schemas/customers';
export type { AuthCheck } from './schemas/auth';
export type * from './schemas/receivables';
export {
  INBOUND_ACTIVE,
  INBOUND_PLANNED,
  INBOUND_STORED_ONLY,
  INBOUND_EVENT_STATUSES,
  EVENT_SOURCES,
  PAYMENT_PROCESSORS,
  PAYMENT_PROCESSOR_STATUSES,
  INVOICE_STATUSES,
  ESTIMATE_STATUSES,
  PAYMENT_SOURCES,
  PAYMENT_STATUSES,
  PAYOUT_STATUSES,
} from './schemas/receivables';
export * from './validate';
export * from './events';
export * from './canonical';
export type * from './schemas/payables';
export { BILL_STATUSES, VENDOR_PAYMENT_STATUSES, VENDOR_TYPES, allocations_max } from './schemas/payables';
export type * from './schemas/webhooks';
export { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_ENDPOINT_STATUSES, WEBHOOK_EVENT_TYPES, webhook_url_length_max } from './schemas/webhooks';
export type * from './schemas/reporting';
