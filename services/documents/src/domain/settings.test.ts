import { DEFAULT_ESTIMATE_VALIDITY_DAYS, DEFAULT_PAYMENT_TERMS_DAYS } from '@acct/contracts';
import { SETTINGS_DEFAULTS, withDefaults } from './settings';

describe('settings defaults', () => {
  it('fills what was never set', () => {
    expect(withDefaults('invoice_defaults', undefined)).toEqual({ payment_terms_days: DEFAULT_PAYMENT_TERMS_DAYS, default_terms: null, default_memo: null, footer: null });
    expect(withDefaults('estimate_defaults', {}).validity_days).toBe(DEFAULT_ESTIMATE_VALIDITY_DAYS);
    expect(withDefaults('document_branding', undefined)).toEqual(SETTINGS_DEFAULTS.document_branding);
  });

  it('keeps a stored value over its default, null included', () => {
    expect(withDefaults('invoice_defaults', { payment_terms_days: 14, footer: 'Thanks' })).toMatchObject({ payment_terms_days: 14, footer: 'Thanks', default_memo: null });
    expect(withDefaults('document_branding', { business_name: 'Acme', primary_color: null })).toMatchObject({ business_name: 'Acme', primary_color: null });
  });
});
