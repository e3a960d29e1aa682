export * as customers from './customers';
export * as auth from './auth';
export * as receivables from './receivables';
export * as payables from './payables';
export * as webhooks from './webhooks';
export * as reporting from './reporting';
export * as documents from './documents';
