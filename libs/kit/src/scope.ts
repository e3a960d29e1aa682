import type { Environment, TrustedContext } from '@acct/contracts';

/** The tenancy filter every query of this service starts from. */
export interface Scope {
  organizationId: string;
  environment: Environment;
}

export function scopeOf(ctx: TrustedContext): Scope {
  return { organizationId: ctx.organizationId, environment: ctx.environment };
}

/** Validated list query (the gateway applied defaults and bounds). */
export function pageQuery(query: Record<string, unknown>): { limit: number; offset: number } {
  return { limit: Number(query.limit), offset: Number(query.offset) };
}
