export * from './db';
export * from './service';
export * from './entities';
