export * from './stack';
export * from './seed';
