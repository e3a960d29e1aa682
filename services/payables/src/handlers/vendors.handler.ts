import { randomUUID } from 'node:crypto';
import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { type Books, createInBooks, updateInBooks } from '@acct/posting';
import { VENDOR, type Vendor, VendorSchema } from '../entities';
import { sameVendorContent, vendorFields } from '../domain/vendors';
import { createVendor, updateVendor } from '../flows/vendors';
import { findVendorByExternalId } from '../queries';

export function registerVendorHandlers(server: RpcServer, books: Books): void {
  server.handle('vendors.create', async (req) => {
    const body = req.body;
    const now = new Date();
    const row: Vendor = { id: randomUUID(), ...scopeOf(req.ctx), externalVendorId: body.external_vendor_id, ...vendorFields(body), createdAt: now, updatedAt: now };
    return createInBooks(books, req.ctx, VENDOR, row, {
      flow: createVendor,
      find: (db) => findVendorByExternalId(db, body.external_vendor_id),
      same: (ex) => sameVendorContent(ex, body),
    });
  });

  server.handle('vendors.update', (req) => updateInBooks(books, req.ctx, VENDOR, (tx) => updateVendor(tx, req.params.id, req.body)));

  registerReads(server, books.orm, 'vendors', {
    ...VENDOR,
    schema: VendorSchema,
    filters: { vendor_type: 'vendorType', is_1099_eligible: 'is1099Eligible' },
  });
}
