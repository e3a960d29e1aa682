import { loadConfig } from '@acct/kit';

/**
 * The settings payables reads beside kit's base ones (NATS, Postgres, ops port, log level, outbox
 * relay): none today. A new one goes here, with its default and doc, as in receivables' config.ts.
 */
export const payablesConfigSpec = {};

export const loadPayablesConfig = (env: NodeJS.ProcessEnv = process.env) => loadConfig(payablesConfigSpec, env);
