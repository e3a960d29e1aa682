import net from 'node:net';
import { SERVICE_MANIFEST } from '@acct/contracts';
import { ensureDatabase } from '@acct/kit';
import type { Stack, StackOptions } from './stack-options';
import { StackProcesses } from './stack-processes';

export * from './stack-options';

/**
 * A port that was free a moment ago. Whoever binds it later may find it taken by then: prefer
 * letting the process that listens bind port 0 and report the port; where that cannot be
 * (nats-server's route ports), retry the start on fresh ports (NatsCluster.start).
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** The manifest's ops ports start at this one (gateway 9100, receivables 9101, ...). */
export const MANIFEST_OPS_BASE = Math.min(...SERVICE_MANIFEST.map((s) => s.opsPort));

/**
 * Ops ports of `npm start`: the manifest's defaults shifted to start at OPS_PORT_BASE (so a second
 * stack on the same machine can use e.g. OPS_PORT_BASE=9200); none when it is 0, so each service
 * binds a free port of its own and reports it (RunningService.opsPort).
 */
export function opsPortsFor(base: number): Record<string, number> {
  const ports: Record<string, number> = {};
  if (base === 0) return ports;
  for (const s of SERVICE_MANIFEST) ports[s.name] = base + (s.opsPort - MANIFEST_OPS_BASE);
  return ports;
}

/**
 * Every service of the manifest, in its order (services first, the gateway last); except that a
 * single gateway on a port of its choosing starts first, as the others need its URL
 * (PUBLIC_BASE_URL) and only it knows the port once it listens.
 */
function startOrder(publicPort: number) {
  return publicPort === 0 ? [...SERVICE_MANIFEST.filter((d) => d.public), ...SERVICE_MANIFEST.filter((d) => !d.public)] : SERVICE_MANIFEST;
}

/**
 * Creates the database if missing, runs every service's migrations, starts every service as its own
 * process and waits until each one's /readyz is green.
 */
export async function startStack(opts: StackOptions): Promise<Stack> {
  const procs = await StackProcesses.create(opts);
  try {
    await procs.startS3();
    await ensureDatabase(opts.databaseUrl);
    for (const def of SERVICE_MANIFEST) await procs.migrate(def);
    for (const def of startOrder(procs.publicPort)) await procs.startService(def.name);
  } catch (e) {
    await procs.stop();
    throw e;
  }
  return {
    gatewayUrl: `http://127.0.0.1:${procs.publicPort}`,
    gatewayUrls: () => procs.gatewayUrls(),
    services: procs.services,
    stopService: (name, signal) => procs.stopService(name, signal),
    startService: (name) => procs.startService(name),
    stopReplica: async (name, replica, signal = 'SIGTERM') => procs.stopInstance(procs.replicaInstance(name, replica), signal),
    startReplica: async (name, replica) => procs.startInstance(procs.replicaInstance(name, replica)),
    status: () => procs.status(),
    stop: () => procs.stop(),
    ...(procs.s3 ? { s3: procs.s3 } : {}),
  };
}
