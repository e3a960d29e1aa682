import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { NatsCluster, PortInUseError, startOwnNats } from './nats-server';
import { freePort } from './stack';

/**
 * The race of issue 21: a port is picked free, then another process binds it before nats-server
 * does. Here the test is that other process: it holds the ports the picker hands out first, so
 * every run loses the race, and the start must still succeed on fresh ports.
 */
describe('nats-server on picked ports that another process took meanwhile', () => {
  const held: net.Server[] = [];
  /** Connections to the held ports (a node's route to a lost route port, a probe of a lost client port). */
  const accepted = new Set<net.Socket>();
  let dir: string;

  /** A port this test listens on (taken, as by a stack starting beside ours). */
  const occupied = async (): Promise<number> => {
    const srv = net.createServer((s) => {
      accepted.add(s);
      s.once('close', () => accepted.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => resolve());
    });
    held.push(srv);
    return (srv.address() as net.AddressInfo).port;
  };

  /** A picker whose picks number `taken` (1-based) return a port that is already bound. */
  const losingPicker = (taken: number[]) => {
    let calls = 0;
    const given: number[] = [];
    const pick = async () => {
      calls++;
      const port = taken.includes(calls) ? await occupied() : await freePort();
      given.push(port);
      return port;
    };
    return { pick, given, calls: () => calls };
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acct-nats-ports-'));
  });
  afterEach(async () => {
    for (const s of accepted) s.destroy();
    for (const s of held.splice(0)) await new Promise((r) => s.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts a 3-node cluster on fresh ports when a client port and a route port were taken', async () => {
    // Picks 1-3 are the client ports, 4-6 the route ports: n0's client port and n1's route port are lost.
    const picker = losingPicker([1, 5]);
    const cluster = await NatsCluster.create(dir, 3, picker.pick);
    const lost = held.map((s) => (s.address() as net.AddressInfo).port);
    expect(lost).toHaveLength(2);
    try {
      await cluster.start(60_000);
      expect(picker.calls()).toBeGreaterThan(6);
      const inUse = cluster.nodes.flatMap((n) => [n.port, n.cluster!.clusterPort, ...n.cluster!.routes]);
      expect(inUse.filter((p) => lost.includes(p))).toEqual([]);
      // The first start failed for the reason the issue names, and the log says so.
      const logs = cluster.nodes.map((n) => fs.readFileSync(n.logFile, 'utf8')).join('\n');
      expect(logs).toMatch(/address already in use/);
      expect(cluster.nodes.every((n) => n.pid !== undefined)).toBe(true);
    } finally {
      await cluster.stop();
    }
  }, 120_000);

  it('starts a single server on a fresh port when the first one picked was taken', async () => {
    const picker = losingPicker([1]);
    const server = await startOwnNats(path.join(dir, 'jetstream'), path.join(dir, 'nats.log'), picker.pick);
    try {
      expect(picker.calls()).toBe(2);
      expect(server.port).toBe(picker.given[1]);
      expect(fs.readFileSync(path.join(dir, 'nats.log'), 'utf8')).toMatch(/address already in use/);
    } finally {
      await server.kill('SIGTERM');
    }
  }, 60_000);

  it('gives up after the retries, naming the clash', async () => {
    const picker = losingPicker([1, 2, 3]);
    const err = await startOwnNats(path.join(dir, 'jetstream'), path.join(dir, 'nats.log'), picker.pick, 3).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PortInUseError);
    // The server's own words come with the error (a CI run keeps its output, not the log file).
    expect((err as Error).message).toMatch(/; its last lines:\n[\s\S]*address already in use/i);
    expect(picker.calls()).toBe(3);
  }, 60_000);
});
