import { AppError, type VendorUpdateBody } from '@acct/contracts';
import { type Tx, nextUpdatedAt } from '@acct/posting';
import { insertEntity } from '@acct/kit';
import { type Vendor, VendorSchema, vendorDto } from '../entities';
import { vendorChanges } from '../domain/vendors';
import { lockVendor } from '../queries';

/** Stores a new vendor and tells the services that keep copies of vendors (vendor.created). */
export async function createVendor(tx: Tx, row: Vendor): Promise<Vendor> {
  await insertEntity(tx.em, VendorSchema, row);
  tx.emit('vendor.created', vendorDto(row));
  return row;
}

/** PATCH: applies the fields the body names; vendor.updated only when something changed. */
export async function updateVendor(tx: Tx, id: string, body: VendorUpdateBody): Promise<Vendor> {
  const vendor = await lockVendor(tx, id);
  if (!vendor) throw AppError.notFound('Vendor', id);
  const changes = vendorChanges(vendor, body);
  if (Object.keys(changes).length === 0) return vendor;
  Object.assign(vendor, changes, { updatedAt: nextUpdatedAt(vendor.updatedAt) });
  tx.emit('vendor.updated', vendorDto(vendor));
  return vendor;
}
