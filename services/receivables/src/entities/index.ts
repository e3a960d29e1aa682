import { CustomerSchema } from './customer.entity';
import { EstimateSchema, InboundEventSchema, InvoiceSchema, PaymentProcessorSchema, PaymentSchema, PayoutSchema } from './receivables.entity';

export * from './customer.entity';
export * from './receivables.entity';
export * from './dto';
export const entities = [CustomerSchema, InvoiceSchema, PaymentSchema, EstimateSchema, PayoutSchema, InboundEventSchema, PaymentProcessorSchema];
