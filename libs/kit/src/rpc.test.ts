import type { NatsConnection } from 'nats';
import type { RpcOperation, RpcRequest } from '@acct/contracts';
import { RpcClient, encodeJson } from './rpc';

const req: RpcRequest = { ctx: { organizationId: 'o', connectedAppId: 'a', environment: 'test', apiKeyId: 'k', requestId: 'r' }, params: {}, query: {}, body: {} };

/** A connection that answers every request at once and records the timeout it was given. */
function fakeConnection(): { nc: NatsConnection; timeouts: Map<string, number> } {
  const timeouts = new Map<string, number>();
  const nc = {
    info: { max_payload: 1024 * 1024 },
    request: async (subject: string, _data: Uint8Array, opts: { timeout: number }) => {
      timeouts.set(subject, opts.timeout);
      return { data: encodeJson({ ok: true, status: 200, body: {} }) };
    },
  } as unknown as NatsConnection;
  return { nc, timeouts };
}

describe('RpcClient timeouts', () => {
  it('waits its own timeout, or an operation’s longer one from the catalogue (the ledger verification)', async () => {
    const { nc, timeouts } = fakeConnection();
    const rpc = new RpcClient(nc, 'acct', 5000);
    for (const op of ['customers.get', 'ledger.verification', 'ledger_chain.receivables'] as RpcOperation[])
      expect(await rpc.call<RpcOperation>(op, req)).toMatchObject({ ok: true });
    expect(Object.fromEntries(timeouts)).toEqual({
      'acct.rpc.receivables.customers.get': 5000,
      'acct.rpc.reporting.ledger.verification': 65_000,
      'acct.rpc.receivables.ledger_chain.receivables': 60_000,
    });
  });
});
