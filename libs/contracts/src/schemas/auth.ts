import { type Static, Type } from '@sinclair/typebox';
import { ENVIRONMENTS } from '../envelope';
import { StringEnum, obj, uuid } from './common';

export const authCheck = obj({
  authenticated: Type.Boolean(),
  environment: StringEnum(ENVIRONMENTS),
  connected_app_id: uuid,
  organization_id: Type.Optional(uuid),
});
export type AuthCheck = Static<typeof authCheck>;
/** Auth check answers under data only (SPEC.md §4 names no second member for it). */
export const authCheckResponse = obj({ data: authCheck });
