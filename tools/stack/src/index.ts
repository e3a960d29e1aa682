export * from './stack';
export * from './seed';
export * from './nats-server';
export * from './round-robin';
export * from './s3';
export * from './own-postgres';
