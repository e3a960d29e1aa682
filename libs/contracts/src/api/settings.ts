import { Optional, type Static, Type } from '@sinclair/typebox';
import { limits } from '../limits';
import { operations } from '../operations';
import { type RouteSpec, routesOf } from '../routes';
import { Nullable, name, obj, optionalAll, singleEnvelope } from '../schemas/common';

/** The settings of an organization and environment that shape documents (the documents service). */

const hexColor = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'A colour as #RRGGBB.' });
const text = (description: string) => Nullable(Type.String({ maxLength: limits.description_length_max, description }));

const capabilities = obj({ document_branding: Type.Boolean(), invoice_defaults: Type.Boolean(), estimate_defaults: Type.Boolean() });
export const capabilitiesResponse = singleEnvelope('capabilities', capabilities);

const documentBranding = obj({
  business_name: Nullable(name),
  payment_instructions: text('Shown on invoice renders and the portal page.'),
  primary_color: Nullable(hexColor),
  logo_document_id: Nullable(Type.String({ format: 'uuid', description: 'An uploaded PNG or JPEG document of this organization and environment.' })),
});
export type DocumentBrandingDto = Static<typeof documentBranding>;
export const documentBrandingBody = obj({ ...optionalAll(documentBranding.properties), logo_document_id: Optional(Nullable(Type.String({ format: 'uuid' }))) });
export const documentBrandingResponse = singleEnvelope('document_branding', documentBranding);

const payment_terms_days_max = 365;
export const DEFAULT_PAYMENT_TERMS_DAYS = 30;
export const DEFAULT_ESTIMATE_VALIDITY_DAYS = 30;

const invoiceDefaults = obj({
  payment_terms_days: Type.Integer({ minimum: 0, maximum: payment_terms_days_max, description: `Days from issue to due date; ${DEFAULT_PAYMENT_TERMS_DAYS} when never set.` }),
  default_terms: text('Terms text, e.g. Net 30.'),
  default_memo: text('Memo printed on invoices.'),
  footer: text('Footer printed on invoices.'),
});
export type InvoiceDefaultsDto = Static<typeof invoiceDefaults>;
export const invoiceDefaultsBody = obj(optionalAll(invoiceDefaults.properties));
export const invoiceDefaultsResponse = singleEnvelope('invoice_defaults', invoiceDefaults);

const estimateDefaults = obj({
  validity_days: Type.Integer({ minimum: 1, maximum: payment_terms_days_max, description: `Days an estimate stays valid; ${DEFAULT_ESTIMATE_VALIDITY_DAYS} when never set.` }),
  default_terms: text('Terms text printed on estimates.'),
  default_memo: text('Memo printed on estimates.'),
});
export type EstimateDefaultsDto = Static<typeof estimateDefaults>;
export const estimateDefaultsBody = obj(optionalAll(estimateDefaults.properties));
export const estimateDefaultsResponse = singleEnvelope('estimate_defaults', estimateDefaults);

export const settingOperations = operations('documents', {
  'settings.capabilities': { reply: capabilitiesResponse },
  'settings.document_branding.get': { reply: documentBrandingResponse },
  'settings.document_branding.put': { body: documentBrandingBody, reply: documentBrandingResponse },
  // Also asked by receivables: an estimate conversion's due date uses payment_terms_days.
  'settings.invoice_defaults.get': { reply: invoiceDefaultsResponse },
  'settings.invoice_defaults.put': { body: invoiceDefaultsBody, reply: invoiceDefaultsResponse },
  'settings.estimate_defaults.get': { reply: estimateDefaultsResponse },
  'settings.estimate_defaults.put': { body: estimateDefaultsBody, reply: estimateDefaultsResponse },
});

const route = routesOf(settingOperations, { tag: 'Settings', module: 'embedded_settings' });

/** One setting: GET answers it (defaults when never set), PUT updates the fields it is given. */
const setting = (Name: string, path: string, op: 'document_branding' | 'invoice_defaults' | 'estimate_defaults', what: string, detail: string): RouteSpec[] => [
  route(`settings.${op}.get`, {
    operationId: `get${Name}`,
    method: 'GET',
    path: `/api/v1/settings/${path}`,
    summary: `Get the ${what} (${detail}) of this organization and environment; defaults when never set.`,
    statuses: { 200: `The ${what}.` },
  }),
  route(`settings.${op}.put`, {
    operationId: `put${Name}`,
    method: 'PUT',
    path: `/api/v1/settings/${path}`,
    summary: `Update the ${what} (${detail}); fields left out keep their value, null clears one.`,
    statuses: { 200: `The updated ${what}.` },
  }),
];

export const settingRoutes: RouteSpec[] = [
  route('settings.capabilities', {
    operationId: 'getCapabilities',
    method: 'GET',
    path: '/api/v1/settings/capabilities',
    summary: 'Which settings this API offers (always available).',
    module: null,
    statuses: { 200: 'The capabilities.' },
  }),
  ...setting('DocumentBranding', 'document-branding', 'document_branding', 'document branding', 'business name, colour, logo document, payment instructions'),
  ...setting('InvoiceDefaults', 'invoice-defaults', 'invoice_defaults', 'invoice defaults', 'payment terms in days, terms text, memo, footer'),
  ...setting('EstimateDefaults', 'estimate-defaults', 'estimate_defaults', 'estimate defaults', 'validity days, terms text, memo'),
];
