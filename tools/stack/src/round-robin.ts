import net from 'node:net';

/**
 * A TCP load balancer for local clusters: each new connection goes to the next target port; a
 * target that refuses the connection is skipped (as a load balancer's health check would).
 * Port 0 listens on a free port (`port` tells which).
 */
export async function startRoundRobin(port: number, targets: () => number[]): Promise<{ url: string; port: number; close(): Promise<void> }> {
  let next = 0;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    open.add(client);
    client.once('close', () => open.delete(client));
    client.pause();
    const ports = targets();
    const attempt = (left: number): void => {
      if (left === 0 || ports.length === 0) {
        client.destroy();
        return;
      }
      const target = ports[next++ % ports.length]!;
      const up = net.connect(target, '127.0.0.1');
      let connected = false;
      up.on('error', () => (connected ? client.destroy() : attempt(left - 1)));
      up.once('connect', () => {
        connected = true;
        open.add(up);
        up.once('close', () => open.delete(up));
        client.on('error', () => up.destroy());
        client.pipe(up);
        up.pipe(client);
        client.resume();
      });
    };
    attempt(ports.length);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
