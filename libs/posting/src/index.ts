export * from './books';
export * from './migrations';
