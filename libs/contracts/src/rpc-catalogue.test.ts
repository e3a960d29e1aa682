import { RPC_CATALOGUE, type RpcOperation } from './rpc-catalogue';
import { ROUTES } from './routes';
import { processorHookBody } from './schemas/receivables';
import { RPC_OPERATIONS, operationsOf, rpcSubject } from './subjects';

describe('RPC_CATALOGUE', () => {
  const ops = Object.keys(RPC_CATALOGUE) as RpcOperation[];

  it('is where RPC_OPERATIONS, operationsOf and rpcSubject come from', () => {
    expect(Object.keys(RPC_OPERATIONS)).toEqual(ops);
    for (const op of ops) expect(RPC_OPERATIONS[op]).toBe(RPC_CATALOGUE[op].service);
    expect(
      [...operationsOf('receivables'), ...operationsOf('payables'), ...operationsOf('documents'), ...operationsOf('reporting'), ...operationsOf('webhook-dispatcher')].sort(),
    ).toEqual([...ops].sort());
    expect(operationsOf('documents')).toEqual(ops.filter((op) => /^(documents|document_shares|document_renders|portal|settings)\./.test(op)));
    expect(operationsOf('webhook-dispatcher')).toEqual(ops.filter((op) => op.startsWith('webhook_endpoints.')));
    expect(operationsOf('reporting')).toEqual(ops.filter((op) => /^(accounts|journal_entries|reports)\./.test(op)));
    expect(operationsOf('payables')).toEqual(ops.filter((op) => /^(vendors|bills|vendor_payments)\./.test(op)));
    expect(rpcSubject('acct', 'invoices.post')).toBe('acct.rpc.receivables.invoices.post');
  });

  it('has exactly one route per public operation, with the same params, query, body and reply schemas', () => {
    const routed = ROUTES.filter((r) => r.rpc !== null);
    const internal = (op: RpcOperation) => (RPC_CATALOGUE[op] as { internal?: true }).internal === true;
    expect(routed.map((r) => r.rpc).sort()).toEqual(ops.filter((op) => !internal(op)).sort());
    // Upload steps, and the portal's page and PDF (asked by the gateway's own handlers for /portal/{token}).
    expect(ops.filter(internal)).toEqual(['documents.upload_prepare', 'documents.upload_finalize', 'documents.upload_discard', 'portal.page', 'portal.pdf']);
    for (const route of routed) {
      const def: { params?: unknown; query?: unknown; body?: unknown; reply: unknown } = RPC_CATALOGUE[route.rpc!];
      // A raw route's body is bytes: the gateway forwards them (base64) with the signature header.
      const body = route.kind === 'raw' ? processorHookBody : route.body;
      expect({ op: route.rpc, params: route.params, query: route.query, body }).toEqual({ op: route.rpc, params: def.params, query: def.query, body: def.body });
      expect({ op: route.rpc, public: route.auth ? undefined : true }).toEqual({ op: route.rpc, public: (def as { public?: true }).public });
      // A download route answers the bytes; its RPC answers where the gateway fetches them from.
      if (route.kind === 'download') continue;
      for (const res of route.responses) expect({ op: route.rpc, status: res.status, schema: res.schema }).toEqual({ op: route.rpc, status: res.status, schema: def.reply });
    }
  });
});
