import { DEFAULT_ESTIMATE_VALIDITY_DAYS, DEFAULT_PAYMENT_TERMS_DAYS, type DocumentBrandingDto, type EstimateDefaultsDto, type InvoiceDefaultsDto } from '@acct/contracts';
import type { Orm } from '@acct/kit';
import { type Scope, getSettings } from '../queries';

/** Each setting's value before an organization sets it. */
export const BRANDING_DEFAULTS: DocumentBrandingDto = { business_name: null, payment_instructions: null, primary_color: null, logo_document_id: null };
export const INVOICE_DEFAULTS: InvoiceDefaultsDto = { payment_terms_days: DEFAULT_PAYMENT_TERMS_DAYS, default_terms: null, default_memo: null, footer: null };
export const ESTIMATE_DEFAULTS: EstimateDefaultsDto = { validity_days: DEFAULT_ESTIMATE_VALIDITY_DAYS, default_terms: null, default_memo: null };

/** Reads the settings of a scope with their defaults filled in (also used by renders). */
export async function readSettings(orm: Orm, s: Scope) {
  const em = orm.em.fork();
  return {
    branding: { ...BRANDING_DEFAULTS, ...(await getSettings<DocumentBrandingDto>(em, s, 'document_branding')) },
    invoice: { ...INVOICE_DEFAULTS, ...(await getSettings<InvoiceDefaultsDto>(em, s, 'invoice_defaults')) },
    estimate: { ...ESTIMATE_DEFAULTS, ...(await getSettings<EstimateDefaultsDto>(em, s, 'estimate_defaults')) },
  };
}
