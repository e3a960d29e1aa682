import { randomUUID } from 'node:crypto';
import { single } from '@acct/contracts';
import { type RpcServer, registerReads, scopeOf } from '@acct/kit';
import { type Books, createOnce } from '@acct/posting';
import { type Vendor, VendorSchema, vendorDto } from '../entities';
import { sameVendorContent, vendorFields } from '../domain/vendors';
import { createVendor, updateVendor } from '../flows/vendors';
import { findVendorByExternalId } from '../queries';

export function registerVendorHandlers(server: RpcServer, books: Books): void {
  const { orm } = books;

  server.handle('vendors.create', async (req) => {
    const body = req.body;
    const now = new Date();
    const row: Vendor = { id: randomUUID(), ...scopeOf(req.ctx), externalVendorId: body.external_vendor_id, ...vendorFields(body), createdAt: now, updatedAt: now };
    return createOnce({
      constraint: 'vendors_external_id',
      create: async () => {
        await books.transact(req.ctx, (tx) => createVendor(tx, row));
        return { ok: true, status: 201, body: single('vendor', vendorDto(row)) };
      },
      existing: () => findVendorByExternalId(books.db(req.ctx), body.external_vendor_id),
      same: (ex) => sameVendorContent(ex, body),
      reply: (ex) => single('vendor', vendorDto(ex)),
      field: '/external_vendor_id',
      what: 'vendor',
    });
  });

  server.handle('vendors.update', async (req) => {
    const vendor = await books.transact(req.ctx, (tx) => updateVendor(tx, req.params.id, req.body));
    return { ok: true, status: 200, body: single('vendor', vendorDto(vendor)) };
  });

  registerReads(server, orm, {
    list: 'vendors.list',
    get: 'vendors.get',
    schema: VendorSchema,
    name: 'vendor',
    plural: 'vendors',
    label: 'Vendor',
    dto: vendorDto,
    filters: { vendor_type: 'vendorType', is_1099_eligible: 'is1099Eligible' },
  });
}
