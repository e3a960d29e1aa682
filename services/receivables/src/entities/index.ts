import { CustomerSchema } from './customer.entity';

export * from './customer.entity';
export const entities = [CustomerSchema];
