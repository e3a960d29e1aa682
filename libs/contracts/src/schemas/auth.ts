import { obj, uuid } from './common';

export const authCheck = obj(
  {
    authenticated: { type: 'boolean' },
    environment: { type: 'string', enum: ['test', 'live'] },
    connected_app_id: uuid,
    organization_id: uuid,
  },
  ['authenticated', 'environment', 'connected_app_id'],
);
/** Auth check answers under data only (SPEC.md §4 names no second member for it). */
export const authCheckResponse = obj({ data: authCheck }, ['data']);
