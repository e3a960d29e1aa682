import { Optional, type Static, Type } from '@sinclair/typebox';
import { METADATA_MERGE_TEXT } from '../openapi-texts';
import { recordResource } from '../record-resource';
import { Nullable, StringEnum, dateTime, email, externalId, name, obj, recordListQuery, uuid } from '../schemas/common';
import { metadataInput, metadataRecord } from '../schemas/metadata';

const VENDOR_TYPES = ['contractor', 'business'] as const;
export type VendorType = (typeof VENDOR_TYPES)[number];
export const vendorCreateBody = obj({
  external_vendor_id: externalId,
  display_name: name,
  vendor_type: Optional(StringEnum(VENDOR_TYPES, { description: 'Default contractor.' })),
  email: Optional(email),
  is_1099_eligible: Optional(Type.Boolean({ description: 'Default false.' })),
  w9_on_file: Optional(Type.Boolean({ description: 'Default false.' })),
  metadata: Optional(metadataInput),
});
export type VendorCreateBody = Static<typeof vendorCreateBody>;
export const vendorUpdateBody = obj(
  {
    display_name: Optional(name),
    email: Optional(Nullable(email)),
    is_1099_eligible: Optional(Type.Boolean()),
    w9_on_file: Optional(Type.Boolean()),
    metadata: Optional(metadataInput),
  },
  { minProperties: 1 },
);
export type VendorUpdateBody = Static<typeof vendorUpdateBody>;
export const vendor = obj({
  id: uuid,
  external_vendor_id: Type.String(),
  display_name: Type.String(),
  vendor_type: StringEnum(VENDOR_TYPES),
  email: Nullable(Type.String()),
  is_1099_eligible: Type.Boolean(),
  w9_on_file: Type.Boolean(),
  metadata: metadataRecord,
  created_at: dateTime,
  updated_at: dateTime,
});
export type VendorDto = Static<typeof vendor>;
export const vendorListQuery = recordListQuery('external_vendor_id', {
  vendor_type: Optional(StringEnum(VENDOR_TYPES)),
  is_1099_eligible: Optional(Type.Boolean()),
});

export const {
  response: vendorResponse,
  listResponse: vendorListResponse,
  operations: vendorOperations,
  routes: vendorRoutes,
} = recordResource({
  service: 'payables',
  resource: 'vendors',
  one: 'vendor',
  record: vendor,
  create: vendorCreateBody,
  query: vendorListQuery,
  http: { name: 'Vendor', path: '/api/v1/vendors', tag: 'Vendors', module: 'vendors' },
  update: vendorUpdateBody,
  routes: (vendors) => [
    vendors.list('List vendors, newest first; filter by vendor_type and is_1099_eligible.'),
    vendors.create({
      summary: 'Create a vendor; retry-safe on external_vendor_id.',
      description:
        'vendor_type defaults to contractor, is_1099_eligible and w9_on_file to false. A repeat with the same external_vendor_id and the same content returns the existing vendor ' +
        '(200, Idempotent-Replayed: true); with different content it is refused with 409 conflict.',
    }),
    vendors.get(),
    vendors.route('vendors.update', {
      operationId: 'updateVendor',
      method: 'PATCH',
      path: '/api/v1/vendors/{id}',
      summary: 'Update a vendor: any of display_name, email (null clears it), is_1099_eligible, w9_on_file, metadata (merged).',
      description: `Fields left out keep their value; at least one is required. External id and vendor_type do not change. ${METADATA_MERGE_TEXT}`,
      statuses: { 200: 'The vendor after the update.' },
    }),
  ],
});
