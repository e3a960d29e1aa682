import { DEFAULT_ESTIMATE_VALIDITY_DAYS, DEFAULT_PAYMENT_TERMS_DAYS, type DocumentBrandingDto, type EstimateDefaultsDto, type InvoiceDefaultsDto } from '@acct/contracts';

/** Each kind of setting (one jsonb row per organization, environment and kind) and its value. */
export interface SettingsOf {
  document_branding: DocumentBrandingDto;
  invoice_defaults: InvoiceDefaultsDto;
  estimate_defaults: EstimateDefaultsDto;
}
export type SettingsKind = keyof SettingsOf;

/** Each setting's value before an organization sets it. */
export const SETTINGS_DEFAULTS: { readonly [K in SettingsKind]: SettingsOf[K] } = {
  document_branding: { business_name: null, payment_instructions: null, primary_color: null, logo_document_id: null },
  invoice_defaults: { payment_terms_days: DEFAULT_PAYMENT_TERMS_DAYS, default_terms: null, default_memo: null, footer: null },
  estimate_defaults: { validity_days: DEFAULT_ESTIMATE_VALIDITY_DAYS, default_terms: null, default_memo: null },
};

/** The stored fields over the defaults (a field never set keeps its default). */
export function withDefaults<K extends SettingsKind>(kind: K, stored: Partial<SettingsOf[K]> | undefined): SettingsOf[K] {
  return { ...SETTINGS_DEFAULTS[kind], ...stored };
}
