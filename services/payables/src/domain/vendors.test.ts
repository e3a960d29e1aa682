import { sameVendorContent, vendorChanges, vendorFields } from './vendors';

const body = { external_vendor_id: 'v-1', display_name: 'Acme' };

describe('vendorFields', () => {
  it('applies the defaults: contractor, no email, not 1099-eligible, no W-9', () => {
    expect(vendorFields(body)).toEqual({ displayName: 'Acme', vendorType: 'contractor', email: null, is1099Eligible: false, w9OnFile: false });
  });
});

describe('sameVendorContent', () => {
  const stored = vendorFields({ ...body, is_1099_eligible: true });
  it('is true for the same content, defaults applied', () => {
    expect(sameVendorContent(stored, { ...body, is_1099_eligible: true, vendor_type: 'contractor', w9_on_file: false })).toBe(true);
  });
  it.each([{ display_name: 'Acme Inc' }, { is_1099_eligible: false }, { email: 'a@b.c' }, { vendor_type: 'business' as const }, { w9_on_file: true }])(
    'is false when %p differs',
    (over) => {
      expect(sameVendorContent(stored, { ...body, is_1099_eligible: true, ...over })).toBe(false);
    },
  );
});

describe('vendorChanges', () => {
  const current = vendorFields({ ...body, email: 'a@b.c' });
  it('names only the fields the body changes', () => {
    expect(vendorChanges(current, { display_name: 'Acme', w9_on_file: true })).toEqual({ w9OnFile: true });
    expect(vendorChanges(current, { email: null, is_1099_eligible: true })).toEqual({ email: null, is1099Eligible: true });
  });
  it('is empty when nothing changes', () => {
    expect(vendorChanges(current, { display_name: 'Acme', email: 'a@b.c', is_1099_eligible: false, w9_on_file: false })).toEqual({});
  });
});
