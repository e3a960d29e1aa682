import { execFile } from 'node:child_process';
import path from 'node:path';

const CLI = path.resolve(__dirname, '../../services/gateway/dist/admin/cli.js');

/** What says which stack the admin CLI acts on: an operator's shell that sets none of it. */
const STACK_VARS = /^(DATABASE_URL|GATEWAY_DATABASE_URL|NATS_URL|NATS_PREFIX|NATS_NKEY_SEED|NATS_USER|NATS_PASSWORD|STACK_DATA_DIR)$/;

export interface AdminCliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `npm run admin -- <args>` as its own process (the build's dist), in this environment without
 * the stack's variables, plus `env`. Never throws: the exit code tells.
 */
export function runAdminCli(env: Record<string, string>, ...args: string[]): Promise<AdminCliRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !STACK_VARS.test(k)));
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...base, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}
