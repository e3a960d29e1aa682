export * from './config';
export * from './logger';
export * from './metrics';
export * from './rpc';
export * from './db';
export * from './ops';
export * from './lifecycle';
export * from './runtime';
