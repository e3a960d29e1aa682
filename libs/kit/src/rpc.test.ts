import type { NatsConnection } from 'nats';
import type { RpcOperation, RpcRequest } from '@acct/contracts';
import { RpcClient } from './rpc';

const req: RpcRequest = { ctx: { organizationId: 'o', connectedAppId: 'a', environment: 'test', apiKeyId: 'k', requestId: 'r' }, params: {}, query: {}, body: {} };

/** A connection on which no request is ever answered: each call ends by its timeout. */
function silentConnection(): { nc: NatsConnection; published: string[] } {
  const published: string[] = [];
  const never = new Promise<void>(() => undefined);
  const nc = {
    info: { max_payload: 1024 * 1024 },
    options: {},
    isClosed: () => false,
    closed: () => never,
    status: () => ({ [Symbol.asyncIterator]: () => ({ next: () => never }) }),
    subscribe: () => ({ closed: never }),
    publish: (subject: string) => void published.push(subject),
  } as unknown as NatsConnection;
  return { nc, published };
}

describe('RpcClient timeouts', () => {
  afterEach(() => jest.useRealTimers());

  it('waits its own timeout, or an operation’s longer one from the catalogue (the ledger verification)', async () => {
    jest.useFakeTimers();
    const { nc, published } = silentConnection();
    const rpc = new RpcClient(nc, 'acct', 5000);
    const ops = ['customers.get', 'ledger_chain.receivables', 'ledger.verification'] as RpcOperation[];
    const ended: string[] = [];
    const calls = ops.map((op) => rpc.call<RpcOperation>(op, req).then((reply) => (ended.push(op), reply)));
    const at = async (ms: number) => {
      await jest.advanceTimersByTimeAsync(ms);
      return [...ended];
    };
    expect(await at(4999)).toEqual([]);
    expect(published).toEqual(['acct.rpc.receivables.customers.get', 'acct.rpc.receivables.ledger_chain.receivables', 'acct.rpc.reporting.ledger.verification']);
    expect(await at(1)).toEqual(['customers.get']);
    expect(await at(60_000 - 5000 - 1)).toEqual(['customers.get']);
    expect(await at(1)).toEqual(['customers.get', 'ledger_chain.receivables']);
    expect(await at(65_000 - 60_000 - 1)).toEqual(['customers.get', 'ledger_chain.receivables']);
    expect(await at(1)).toEqual(ops);
    for (const reply of await Promise.all(calls)) expect(reply).toMatchObject({ ok: false, error: { code: 'service_unavailable' } });
  });
});
