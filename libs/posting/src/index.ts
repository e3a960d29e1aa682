export * from './books';
export * from './books-lock';
export * from './migrations';
export * from './catalogue';
export * from './line-documents';
export * from './replies';
export * from './updates';
export * from './chain';
