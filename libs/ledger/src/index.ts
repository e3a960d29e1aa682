export * from './money';
export * from './accounts';
export * from './entry';
export * from './schema';
export * from './dates';
export * from './lines';
export * from './posting-event';
export * from './chain';
