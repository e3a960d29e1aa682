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
  return adminCliWith<T>({ DATABASE_URL: databaseUrl }, ...args);
}

async function adminCliWith<T>(env: Record<string, string>, ...args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, [path.join(ROOT, 'services/gateway/dist/admin/cli.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout) as T;
}

export interface DevSeed {
  organization_id: string;
  connected_app_id: string;
  test_key: string;
  /** A fresh owner invitation to the dashboard (owner@example.com); null once the organization has a member. */
  invite_url?: string | null;
  member_exists?: boolean;
}

/**
 * The development organization's fresh test key and, while it has no member, a fresh owner
 * invitation to its dashboard at `dashboardUrl` (`admin dev-key`).
 */
export function bootstrapDevKey(databaseUrl: string, dashboardUrl?: string): Promise<DevSeed> {
  return adminCliWith({ DATABASE_URL: databaseUrl, ...(dashboardUrl ? { DASHBOARD_URL: dashboardUrl } : {}) }, 'dev-key', '--json');
}

/** What npm start prints about the dashboard: the invitation to open, or that an owner signs in. */
export function dashboardLine(seed: DevSeed, dashboardUrl: string): string {
  if (seed.invite_url) return `  dashboard: open ${seed.invite_url} (owner invitation for owner@example.com, 72 h, single use)`;
  if (seed.member_exists) return `  dashboard: ${dashboardUrl} (the organization has a member already: sign in; npm run admin -- invite for more)`;
  return `  dashboard: ${dashboardUrl} (no invitation made: npm run admin -- invite --org ${seed.organization_id} --email you@example.com --role owner)`;
}
