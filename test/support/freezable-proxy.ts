import net from 'node:net';

/**
 * A TCP proxy in front of a server (s3rver in the tests) that can freeze: while frozen, every
 * connection, open or new, is accepted but nothing is forwarded either way and nothing is answered,
 * as a hung store behaves (no refusal, no reset: only silence).
 */
export interface FreezableProxy {
  port: number;
  url: string;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startFreezableProxy(targetPort: number, host = '127.0.0.1'): Promise<FreezableProxy> {
  let frozen = false;
  const sockets = new Set<net.Socket>();
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (frozen) {
      // Accepted, read (so the sender's writes complete) and never answered.
      client.on('data', () => undefined);
      return;
    }
    const upstream = net.connect(targetPort, host);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    const pair = { client, upstream };
    pairs.add(pair);
    client.on('close', () => pairs.delete(pair));
    // Forward while thawed; while frozen, drop the bytes (a hung server answers nothing).
    client.on('data', (d) => {
      if (!frozen) upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!frozen) client.write(d);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `http://${host}:${port}`,
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      // A connection that saw dropped bytes is broken: let it go, as a store coming back would.
      for (const p of pairs) {
        p.client.destroy();
        p.upstream.destroy();
      }
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
