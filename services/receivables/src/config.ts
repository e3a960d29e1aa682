import { type VarSpec, loadConfig, parseSecretKey } from '@acct/kit';

const receivablesConfigSpec = {
  PROCESSOR_SECRET_KEY: {
    default: undefined,
    doc: 'key (64 hex digits, or at least 32 random characters) that encrypts payment-processor signing secrets at rest with AES-256-GCM; required',
    parse: parseSecretKey,
  } satisfies VarSpec<Buffer>,
};

export interface ReceivablesConfig {
  /** Encrypts the Stripe signing secrets of PUT /settings/payment-processor (kit's secrets scheme). */
  processorSecretKey: Buffer;
}

export function loadReceivablesConfig(env: NodeJS.ProcessEnv = process.env): ReceivablesConfig {
  const c = loadConfig(receivablesConfigSpec, env);
  return { processorSecretKey: c.PROCESSOR_SECRET_KEY };
}
