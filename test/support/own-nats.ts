import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BusPrincipal } from '@acct/contracts';
import type { OwnNatsServer } from '@acct/stack';

export interface NatsWithUsers {
  /** A fresh temporary directory holding the server's JetStream store and log. */
  dir: string;
  server: OwnNatsServer;
  /** Each bus principal's nkey seed. */
  seeds: Record<BusPrincipal, string>;
}

/**
 * A nats-server of the test's own with the users the stack tool writes for `prefix` (one per bus
 * principal), in a new directory under the system's temporary one named after `dirPrefix`.
 */
export async function startNatsWithUsers(prefix: string, dirPrefix: string): Promise<NatsWithUsers> {
  // Loaded here, not with @acct/testing: most tests never start a server of their own.
  const { freePort, generateStackBusAuth, startOwnNats } = await import('@acct/stack');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), dirPrefix));
  const auth = generateStackBusAuth(prefix);
  const server = await startOwnNats(path.join(dir, 'jetstream'), path.join(dir, 'nats.log'), freePort, undefined, auth.server);
  return { dir, server, seeds: auth.seeds };
}
