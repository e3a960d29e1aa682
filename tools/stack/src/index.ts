export * from './stack';
export * from './seed';
export * from './s3';
