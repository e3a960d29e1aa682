import type { VendorUpdateBody } from '@acct/contracts';
import { type PartyWrites, type Tx, createParty, updateParty } from '@acct/posting';
import { type Vendor, VendorSchema, vendorDto } from '../entities';
import { vendorChanges } from '../domain/vendors';
import { lockVendor } from '../queries';

/** Vendors are kept in copies by other services: vendor.created and vendor.updated tell them. */
const VENDORS: PartyWrites<Vendor, 'vendor.created', 'vendor.updated'> = {
  schema: VendorSchema,
  label: 'Vendor',
  created: 'vendor.created',
  updated: 'vendor.updated',
  dto: vendorDto,
  lock: lockVendor,
};

/** Stores a new vendor and tells the services that keep copies of vendors (vendor.created). */
export const createVendor = (tx: Tx, row: Vendor): Promise<Vendor> => createParty(VENDORS, tx, row);

/** PATCH: applies the fields the body names; vendor.updated only when something changed. */
export const updateVendor = (tx: Tx, id: string, body: VendorUpdateBody): Promise<Vendor> => updateParty(VENDORS, tx, id, (vendor) => vendorChanges(vendor, body));
