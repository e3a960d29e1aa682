import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { NatsCluster, ROOT, freePort, startStack, type Stack } from '@acct/stack';
import { dropDatabase, dropEventsStream } from '@acct/kit';
import { NATS_URL, PG_SERVER_URL, uniqueName, uniquePrefix } from '@acct/testing';

const run = promisify(execFile);

export interface E2E {
  stack: Stack;
  base: string;
  databaseUrl: string;
  logDir: string;
  /** The stack's NATS_PREFIX and NATS_URL (for admin commands that talk to a service). */
  natsPrefix: string;
  natsUrl: string;
  stop(): Promise<void>;
}

/**
 * The whole system as separate processes, on its own database, NATS prefix and ports. With
 * E2E_CLUSTER=1 (`npm run test:cluster`): on a 3-node NATS JetStream cluster of its own (streams with
 * 3 replicas), 2 processes of every service and 2 gateways behind a round-robin balancer.
 */
export async function startE2E(env: Record<string, string> = {}): Promise<E2E> {
  const name = uniqueName('acct_e2e');
  const u = new URL(PG_SERVER_URL);
  u.pathname = `/${name}`;
  const databaseUrl = u.toString();
  const logDir = path.join(os.tmpdir(), name);
  const natsPrefix = uniquePrefix();
  const clustered = process.env.E2E_CLUSTER === '1';
  // The cluster's stores (event payloads) beside the log folder, their logs in it.
  const natsDir = `${logDir}_nats`;
  const cluster = clustered ? await NatsCluster.create(natsDir, 3, freePort, logDir) : undefined;
  await cluster?.start();
  const natsUrl = cluster?.url ?? NATS_URL;
  let stack: Stack;
  try {
    stack = await startStack({
      databaseUrl,
      natsUrl,
      natsPrefix,
      // 0: the gateway (or the balancer in front of several) binds a free port itself.
      gatewayPort: 0,
      logs: { dir: logDir },
      replicas: clustered ? 2 : 1,
      // Two replicas of 6 services with the default pool of 10 could open 120 connections, more than
      // a default Postgres allows (100) with two e2e files at once: each replica gets half the pool,
      // as the README's sizing rule (replicas × services × DB_POOL_MAX < max_connections) says.
      env: { LOG_LEVEL: 'info', ...(clustered ? { EVENTS_STREAM_REPLICAS: '3', DB_POOL_MAX: '5' } : {}), ...env },
    });
  } catch (e) {
    await cluster?.stop();
    throw e;
  }
  return {
    stack,
    base: stack.gatewayUrl,
    databaseUrl,
    logDir,
    natsPrefix,
    natsUrl,
    stop: async () => {
      await stack.stop();
      await dropDatabase(databaseUrl);
      await dropEventsStream(natsUrl, natsPrefix).catch(() => undefined);
      await cluster?.stop();
      // Service logs help only while debugging: E2E_KEEP_LOGS=1 keeps them (the path is in logDir).
      if (!process.env.E2E_KEEP_LOGS) for (const d of [logDir, natsDir]) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}

/** `npm run --silent admin -- <args>` exactly as the README has it, against the test database. */
export async function admin(databaseUrl: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('npm', ['run', '--silent', 'admin', '--', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  return stdout;
}

export interface Keys {
  organization_id: string;
  connected_app_id: string;
  test_key: string;
  live_key: string;
}

export async function bootstrapOrg(databaseUrl: string, name = 'E2E org'): Promise<Keys> {
  return JSON.parse(await admin(databaseUrl, 'bootstrap', '--json', '--name', name)) as Keys;
}

export function client(base: string, key?: string) {
  return async (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) => {
    const h: Record<string, string> = { ...headers };
    if (key) h.authorization = `Bearer ${key}`;
    if (body !== undefined) h['content-type'] ??= 'application/json';
    const res = await fetch(`${base}${p}`, { method, headers: h, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json, text };
  };
}
