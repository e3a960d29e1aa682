export * from './books';
export * from './migrations';
export * from './catalogue';
