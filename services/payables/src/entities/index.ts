import { BillSchema, VendorPaymentSchema, VendorSchema } from './payables.entity';

export * from './payables.entity';
export * from './dto';
export const entities = [VendorSchema, BillSchema, VendorPaymentSchema];
