/**
 * The request/reply operations, one declaration each: the service that serves it and the schemas
 * of its path params, query, body and success reply. RPC_OPERATIONS, rpcSubject() and the typed
 * RpcServer.handle / RpcClient.call derive from this table; ROUTES points at the same schemas.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { PublicContext, RpcOk, RpcReply, RpcRequest, TrustedContext } from './envelope';
import type { ServiceName } from './services';
import { idParams } from './schemas/common';
import * as customers from './schemas/customers';
import * as r from './schemas/receivables';
import * as ap from './schemas/payables';
import * as wh from './schemas/webhooks';
import * as rep from './schemas/reporting';
import * as doc from './schemas/documents';

export interface RpcDef {
  service: ServiceName;
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  /** The success body (RpcOk.body), as the gateway sends it. */
  reply: TSchema;
  /** Served for a public route: the request carries a PublicContext, no tenancy. */
  public?: true;
  /** Asked by the gateway or another service only, never a public route (e.g. an upload's steps). */
  internal?: true;
}

const receivables = 'receivables';
const payables = 'payables';
const webhooks = 'webhook-dispatcher';
const reporting = 'reporting';
const documents = 'documents';

export const RPC_CATALOGUE = {
  'customers.create': { service: receivables, body: customers.customerCreateBody, reply: customers.customerResponse },
  'customers.list': { service: receivables, query: customers.customerListQuery, reply: customers.customerListResponse },
  'customers.get': { service: receivables, params: idParams, reply: customers.customerResponse },
  'invoices.create': { service: receivables, body: r.invoiceCreateBody, reply: r.invoiceResponse },
  'invoices.list': { service: receivables, query: r.invoiceListQuery, reply: r.invoiceListResponse },
  'invoices.get': { service: receivables, params: idParams, reply: r.invoiceResponse },
  'invoices.post': { service: receivables, params: idParams, reply: r.invoicePostResponse },
  'payments.create': { service: receivables, body: r.paymentCreateBody, reply: r.paymentResponse },
  'payments.list': { service: receivables, query: r.paymentListQuery, reply: r.paymentListResponse },
  'payments.get': { service: receivables, params: idParams, reply: r.paymentResponse },
  'estimates.create': { service: receivables, body: r.estimateCreateBody, reply: r.estimateResponse },
  'estimates.list': { service: receivables, query: r.estimateListQuery, reply: r.estimateListResponse },
  'estimates.get': { service: receivables, params: idParams, reply: r.estimateResponse },
  'estimates.status': { service: receivables, params: idParams, body: r.estimateStatusBody, reply: r.estimateStatusResponse },
  'estimates.convert': { service: receivables, params: idParams, body: r.estimateConvertBody, reply: r.estimateConvertResponse },
  'payouts.create': { service: receivables, body: r.payoutCreateBody, reply: r.payoutResponse },
  'payouts.list': { service: receivables, query: r.payoutListQuery, reply: r.payoutListResponse },
  'payouts.get': { service: receivables, params: idParams, reply: r.payoutResponse },
  'events.create': { service: receivables, body: r.eventCreateBody, reply: r.eventResponse },
  'events.list': { service: receivables, query: r.eventListQuery, reply: r.eventListResponse },
  'events.get': { service: receivables, params: idParams, reply: r.eventResponse },
  'payment_processor.get': { service: receivables, reply: r.paymentProcessorResponse },
  'payment_processor.put': { service: receivables, body: r.paymentProcessorPutBody, reply: r.paymentProcessorResponse },
  'payment_processor.delete': { service: receivables, reply: r.paymentProcessorDeleteResponse },
  'processor_hooks.stripe': { service: receivables, public: true, params: r.processorHookParams, body: r.processorHookBody, reply: r.eventResponse },
  'vendors.create': { service: payables, body: ap.vendorCreateBody, reply: ap.vendorResponse },
  'vendors.list': { service: payables, query: ap.vendorListQuery, reply: ap.vendorListResponse },
  'vendors.get': { service: payables, params: idParams, reply: ap.vendorResponse },
  'vendors.update': { service: payables, params: idParams, body: ap.vendorUpdateBody, reply: ap.vendorResponse },
  'bills.create': { service: payables, body: ap.billCreateBody, reply: ap.billResponse },
  'bills.list': { service: payables, query: ap.billListQuery, reply: ap.billListResponse },
  'bills.get': { service: payables, params: idParams, reply: ap.billResponse },
  'bills.post': { service: payables, params: idParams, reply: ap.billPostResponse },
  'bills.reverse': { service: payables, params: idParams, body: ap.billReverseBody, reply: ap.billReverseResponse },
  'vendor_payments.create': { service: payables, body: ap.vendorPaymentCreateBody, reply: ap.vendorPaymentResponse },
  'vendor_payments.list': { service: payables, query: ap.vendorPaymentListQuery, reply: ap.vendorPaymentListResponse },
  'vendor_payments.get': { service: payables, params: idParams, reply: ap.vendorPaymentResponse },
  'vendor_payments.post': { service: payables, params: idParams, reply: ap.vendorPaymentPostResponse },
  'vendor_payments.reverse': { service: payables, params: idParams, body: ap.vendorPaymentReverseBody, reply: ap.vendorPaymentReverseResponse },
  'webhook_endpoints.create': { service: webhooks, body: wh.webhookEndpointCreateBody, reply: wh.webhookEndpointCreateResponse },
  'webhook_endpoints.list': { service: webhooks, query: wh.webhookEndpointListQuery, reply: wh.webhookEndpointListResponse },
  'webhook_endpoints.get': { service: webhooks, params: idParams, reply: wh.webhookEndpointResponse },
  'webhook_endpoints.delete': { service: webhooks, params: idParams, reply: wh.webhookEndpointDeleteResponse },
  'webhook_endpoints.test': { service: webhooks, params: idParams, reply: wh.webhookDeliveryResponse },
  'webhook_endpoints.deliveries': { service: webhooks, params: idParams, query: wh.webhookDeliveryListQuery, reply: wh.webhookDeliveryListResponse },
  'accounts.list': { service: reporting, query: rep.accountListQuery, reply: rep.accountListResponse },
  'accounts.get': { service: reporting, params: idParams, reply: rep.accountResponse },
  'journal_entries.list': { service: reporting, query: rep.journalEntryListQuery, reply: rep.journalEntryListResponse },
  'reports.summary': { service: reporting, query: rep.summaryQuery, reply: rep.summaryResponse },
  'reports.accounts_receivable': { service: reporting, query: rep.agingQuery, reply: rep.receivablesReportResponse },
  'reports.accounts_payable': { service: reporting, query: rep.agingQuery, reply: rep.payablesReportResponse },
  'reports.form_1099': { service: reporting, query: rep.form1099Query, reply: rep.form1099Response },
  'reports.trial_balance': { service: reporting, query: rep.trialBalanceQuery, reply: rep.trialBalanceResponse },
  // Uploads: the gateway reserves a document, PUTs the bytes to the URL it gets, then finalizes (or discards).
  'documents.upload_prepare': { service: documents, body: doc.documentUploadPrepareBody, reply: doc.documentUploadPrepareReply, internal: true },
  'documents.upload_finalize': { service: documents, body: doc.documentUploadIdBody, reply: doc.documentResponse, internal: true },
  'documents.upload_discard': { service: documents, body: doc.documentUploadIdBody, reply: doc.documentDiscardReply, internal: true },
  'documents.list': { service: documents, query: doc.documentListQuery, reply: doc.documentListResponse },
  'documents.get': { service: documents, params: idParams, reply: doc.documentResponse },
  'documents.download': { service: documents, params: idParams, reply: doc.documentResponse },
  'documents.link': { service: documents, params: idParams, body: doc.documentLinkBody, reply: doc.documentLinkResponse },
  'document_shares.create': { service: documents, body: doc.documentShareCreateBody, reply: doc.documentShareResponse },
  'document_shares.get': { service: documents, params: idParams, reply: doc.documentShareResponse },
  'document_shares.revoke': { service: documents, params: idParams, reply: doc.documentShareResponse },
  'document_renders.get': { service: documents, params: idParams, reply: doc.documentRenderResponse },
  'document_renders.download': { service: documents, params: idParams, reply: doc.documentRenderResponse },
  // The customer portal (no API key): the share token is the only credential; the gateway serves the page.
  'portal.page': { service: documents, public: true, internal: true, params: doc.portalParams, body: doc.portalPageBody, reply: doc.portalPageReply },
  'portal.pdf': { service: documents, public: true, internal: true, params: doc.portalParams, reply: doc.documentRenderResponse },
  'settings.capabilities': { service: documents, reply: doc.capabilitiesResponse },
  'settings.document_branding.get': { service: documents, reply: doc.documentBrandingResponse },
  'settings.document_branding.put': { service: documents, body: doc.documentBrandingBody, reply: doc.documentBrandingResponse },
  // Also asked by receivables: an estimate conversion's due date uses payment_terms_days.
  'settings.invoice_defaults.get': { service: documents, reply: doc.invoiceDefaultsResponse },
  'settings.invoice_defaults.put': { service: documents, body: doc.invoiceDefaultsBody, reply: doc.invoiceDefaultsResponse },
  'settings.estimate_defaults.get': { service: documents, reply: doc.estimateDefaultsResponse },
  'settings.estimate_defaults.put': { service: documents, body: doc.estimateDefaultsBody, reply: doc.estimateDefaultsResponse },
} as const satisfies Record<string, RpcDef>;

export type RpcCatalogue = typeof RPC_CATALOGUE;
export type RpcOperation = keyof RpcCatalogue;

/**
 * true when K is more than one operation (typically RpcOperation itself: an operation known only
 * at run time, as in the gateway's route table). Such requests and replies stay untyped
 * (RpcRequest, RpcOk<unknown>): the gateway checks them against the route's schemas at run time.
 */
type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never;
type Part<K extends RpcOperation, P extends keyof RpcDef, Missing, Loose> = [IsUnion<K>] extends [true]
  ? Loose
  : RpcCatalogue[K] extends { readonly [Q in P]: infer S extends TSchema }
    ? Static<S>
    : Missing;

/** Path parameters of K (Record<string, string> when it has none). */
export type RpcParamsOf<K extends RpcOperation> = Part<K, 'params', Record<string, string>, Record<string, string>>;
/** Query of K after the gateway validated, coerced and defaulted it. */
export type RpcQueryOf<K extends RpcOperation> = Part<K, 'query', Record<string, never>, Record<string, unknown>>;
/** Body of K; an operation without a body gets {}. */
export type RpcBodyOf<K extends RpcOperation> = Part<K, 'body', Record<string, never>, unknown>;
/** The success body of K (what its handler returns as RpcOk.body). */
export type RpcReplyBodyOf<K extends RpcOperation> = Part<K, 'reply', never, unknown>;

/** The context K's handler gets: a PublicContext for a public operation, else the TrustedContext. */
export type RpcContextOf<K extends RpcOperation> = [K] extends [KeyedOperation] ? TrustedContext : [K] extends [PublicOperation] ? PublicContext : TrustedContext | PublicContext;

/** Operations of public routes (no API key: their requests carry a PublicContext). */
export type PublicOperation = { [K in RpcOperation]: RpcCatalogue[K] extends { readonly public: true } ? K : never }[RpcOperation];
/** Operations behind an API key (their requests carry the TrustedContext). */
export type KeyedOperation = Exclude<RpcOperation, PublicOperation>;

export type RpcRequestOf<K extends RpcOperation> = RpcRequest<RpcBodyOf<K>, RpcParamsOf<K>, RpcQueryOf<K>, RpcContextOf<K>>;
export type RpcOkOf<K extends RpcOperation> = RpcOk<RpcReplyBodyOf<K>>;
export type RpcReplyOf<K extends RpcOperation> = RpcReply<RpcReplyBodyOf<K>>;
export type RpcHandlerOf<K extends RpcOperation> = (req: RpcRequestOf<K>) => Promise<RpcOkOf<K>>;
