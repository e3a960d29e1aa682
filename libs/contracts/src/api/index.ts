/**
 * The API, one file per resource (api/<resource>.ts: its schemas, its RPC operations, its routes).
 * RPC_CATALOGUE is every resource's operations; ROUTES is every resource's routes, in the order the
 * OpenAPI document lists them.
 */
import type { RouteSpec } from '../routes';
import { billOperations, billRoutes } from './bills';
import { booksLockCopyOperations, booksLockOperations, booksLockRoutes } from './books-lock';
import { customerOperations, customerRoutes } from './customers';
import { documentRenderOperations, documentRenderRoutes } from './document-renders';
import { documentShareOperations, documentShareRoutes } from './document-shares';
import { documentOperations, documentRoutes } from './documents';
import { estimateOperations, estimateRoutes } from './estimates';
import { eventOperations, eventRoutes } from './events';
import { gatewayRoutes } from './gateway';
import { invoiceOperations, invoiceRoutes } from './invoices';
import { ledgerOperations, ledgerRoutes, payablesChainOperations, receivablesChainOperations } from './ledger';
import { paymentProcessorOperations, paymentProcessorRoutes } from './payment-processor';
import { paymentOperations, paymentRoutes } from './payments';
import { payoutOperations, payoutRoutes } from './payouts';
import { portalOperations, portalRoutes } from './portal';
import { settingOperations, settingRoutes } from './settings';
import { statementOperations, statementRoutes } from './statements';
import { vendorPaymentOperations, vendorPaymentRoutes } from './vendor-payments';
import { vendorOperations, vendorRoutes } from './vendors';
import { webhookEndpointOperations, webhookEndpointRoutes } from './webhook-endpoints';

/** Every resource's operations, in the catalogue's order. */
export const RESOURCE_OPERATIONS = [
  customerOperations,
  invoiceOperations,
  paymentOperations,
  estimateOperations,
  payoutOperations,
  eventOperations,
  paymentProcessorOperations,
  vendorOperations,
  billOperations,
  vendorPaymentOperations,
  webhookEndpointOperations,
  ledgerOperations,
  receivablesChainOperations,
  payablesChainOperations,
  documentOperations,
  documentShareOperations,
  documentRenderOperations,
  portalOperations,
  settingOperations,
  booksLockOperations,
  booksLockCopyOperations,
  statementOperations,
] as const;

type Merged<T> = T extends readonly [infer Head, ...infer Rest] ? Head & Merged<Rest> : unknown;
type Flat<T> = { readonly [K in keyof T]: T[K] };

/** Every operation of every resource, with its exact schema types (RpcCatalogue types handlers and callers). */
export const RPC_CATALOGUE = Object.assign({}, ...RESOURCE_OPERATIONS) as Flat<Merged<typeof RESOURCE_OPERATIONS>>;

/** The operations' names: what a route's rpc is (RpcOperation, named in rpc-catalogue.ts, which imports this file). */
type Operation = keyof typeof RPC_CATALOGUE;

export const ROUTES = [
  ...gatewayRoutes,
  ...customerRoutes,
  ...invoiceRoutes,
  ...paymentRoutes,
  ...payoutRoutes,
  ...estimateRoutes,
  ...eventRoutes,
  ...paymentProcessorRoutes,
  ...vendorRoutes,
  ...billRoutes,
  ...vendorPaymentRoutes,
  ...webhookEndpointRoutes,
  ...documentRoutes,
  ...documentShareRoutes,
  ...documentRenderRoutes,
  ...portalRoutes,
  ...settingRoutes,
  ...booksLockRoutes,
  ...statementRoutes.slice(0, 2),
  ...ledgerRoutes,
  ...statementRoutes.slice(2),
] as RouteSpec<Operation>[];

export function findRoute(operationId: string): RouteSpec<Operation> {
  const r = ROUTES.find((x) => x.operationId === operationId);
  if (!r) throw new Error(`unknown route ${operationId}`);
  return r;
}
