import { sameVendorContent, vendorChanges, vendorFields } from './vendors';

const body = { external_vendor_id: 'v-1', display_name: 'Acme' };

describe('vendorFields', () => {
  it('applies the defaults: contractor, no email, not 1099-eligible, no W-9', () => {
    expect(vendorFields(body)).toEqual({ displayName: 'Acme', vendorType: 'contractor', email: null, is1099Eligible: false, w9OnFile: false, metadata: {} });
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
  it('merges metadata and names it only when the merge changes it; 400 past 50 keys', () => {
    const tagged = { ...current, metadata: { a: '1' } };
    expect(vendorChanges(tagged, { metadata: { a: '1' } })).toEqual({});
    expect(vendorChanges(tagged, { metadata: { a: '', b: '2' } })).toEqual({ metadata: { b: '2' } });
    const full = { ...current, metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'])) };
    expect(() => vendorChanges(full, { metadata: { more: 'v' } })).toThrow(expect.objectContaining({ code: 'validation_failed' }));
  });
  it('is empty when nothing changes', () => {
    expect(vendorChanges(current, { display_name: 'Acme', email: 'a@b.c', is_1099_eligible: false, w9_on_file: false })).toEqual({});
  });
});
