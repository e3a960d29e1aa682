import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './stack';

const run = promisify(execFile);

/**
 * Runs the gateway's admin CLI (`npm run admin -- <args>`) as its own process against
 * `databaseUrl` and parses its JSON output: the stack never imports a service's internals.
 */
export async function adminCli<T>(databaseUrl: string, ...args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, [path.join(ROOT, 'services/gateway/dist/admin/cli.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  return JSON.parse(stdout) as T;
}

/** The development organization's fresh test key (`admin dev-key`). */
export function bootstrapDevKey(databaseUrl: string): Promise<{ organization_id: string; connected_app_id: string; test_key: string }> {
  return adminCli(databaseUrl, 'dev-key', '--json');
}
