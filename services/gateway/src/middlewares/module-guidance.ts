import { AppError, type RouteDef } from '@acct/contracts';
import type { Middleware } from './state';

export type ModuleEnforcement = 'soft' | 'hard';

/** A route of a module the organization has not enabled: a warning header, or 403 under 'hard'. */
export function moduleGuidance(route: RouteDef, enforcement: ModuleEnforcement): Middleware {
  return async (ctx, next) => {
    if (route.module && !ctx.state.principal!.enabledModules.has(route.module)) {
      if (enforcement === 'hard') {
        throw new AppError('module_disabled', `The ${route.module} module is not enabled for this organization.`);
      }
      ctx.set('Module-Warning', `module "${route.module}" is not enabled for this organization; enable it in the dashboard`);
    }
    await next();
  };
}
