import { RESOURCE_OPERATIONS, ROUTES } from './api/index';
import { RPC_CATALOGUE, type RpcDef, type RpcOperation, rpcTimeoutOf } from './rpc-catalogue';
import { LEDGER_CHAIN_TIMEOUT_MS, LEDGER_VERIFICATION_TIMEOUT_MS } from './api/ledger';
import { SERVICE_MANIFEST } from './manifest';
import { RPC_OPERATIONS, operationsOf, rpcSubject } from './subjects';

describe('RPC_CATALOGUE', () => {
  const ops = Object.keys(RPC_CATALOGUE) as RpcOperation[];
  const serviceOf = (resource: object) => [...new Set(Object.values(resource).map((def: { service: string }) => def.service))];

  it('is every resource’s operations, each declared once', () => {
    const declared = RESOURCE_OPERATIONS.flatMap((resource) => Object.keys(resource));
    expect(declared).toEqual(ops);
    expect(new Set(declared).size).toBe(declared.length);
  });

  it('takes each resource’s operations from one service, and each service’s from its resources', () => {
    for (const resource of RESOURCE_OPERATIONS) expect(serviceOf(resource)).toHaveLength(1);
    const served = SERVICE_MANIFEST.filter((s) => s.queue !== null).map((s) => s.name);
    for (const service of served) {
      const resources = RESOURCE_OPERATIONS.filter((resource) => serviceOf(resource)[0] === service);
      expect(resources.length).toBeGreaterThan(0);
      expect(operationsOf(service)).toEqual(resources.flatMap((resource) => Object.keys(resource)));
    }
    expect(served.flatMap((s) => operationsOf(s)).sort()).toEqual([...ops].sort());
  });

  it('is where RPC_OPERATIONS, operationsOf and rpcSubject come from', () => {
    expect(Object.keys(RPC_OPERATIONS)).toEqual(ops);
    for (const op of ops) expect(RPC_OPERATIONS[op]).toBe(RPC_CATALOGUE[op].service);
    expect(rpcSubject('acct', 'invoices.post')).toBe('acct.rpc.receivables.invoices.post');
  });

  it('has exactly one route per operation that is not internal', () => {
    const internal = (op: RpcOperation) => (RPC_CATALOGUE[op] as { internal?: true }).internal === true;
    expect(
      ROUTES.filter((r) => r.rpc !== null)
        .map((r) => r.rpc)
        .sort(),
    ).toEqual(ops.filter((op) => !internal(op)).sort());
    // Each posting service's chain verification (asked by reporting for /ledger/verification), upload
    // steps, the portal's page and PDF (asked by the gateway's own handlers for /portal/{token}), and
    // the lock date push of receivables to payables' copy.
    expect(ops.filter(internal)).toEqual([
      'ledger_chain.receivables',
      'ledger_chain.payables',
      'documents.upload_prepare',
      'documents.upload_finalize',
      'documents.upload_discard',
      'portal.page',
      'portal.pdf',
      'books_lock.apply',
    ]);
  });

  it('gives only the ledger verification a timeout of its own, the route’s longer than the chains’ (issue #25)', () => {
    const own = Object.fromEntries(ops.flatMap((op) => ((RPC_CATALOGUE[op] as RpcDef).timeoutMs === undefined ? [] : [[op, (RPC_CATALOGUE[op] as RpcDef).timeoutMs]])));
    expect(own).toEqual({ 'ledger_chain.receivables': 60_000, 'ledger_chain.payables': 60_000, 'ledger.verification': 65_000 });
    expect(LEDGER_CHAIN_TIMEOUT_MS).toBe(60_000);
    // Reporting answers (503 naming the slow service) before the gateway stops waiting.
    expect(LEDGER_VERIFICATION_TIMEOUT_MS).toBeGreaterThan(LEDGER_CHAIN_TIMEOUT_MS);
  });

  it('rpcTimeoutOf: the operation’s own timeout when longer than the caller’s, never shorter', () => {
    expect(rpcTimeoutOf('ledger.verification', 5000)).toBe(65_000);
    expect(rpcTimeoutOf('ledger_chain.payables', 5000)).toBe(60_000);
    expect(rpcTimeoutOf('ledger_chain.payables', 120_000)).toBe(120_000);
    expect(rpcTimeoutOf('invoices.post', 5000)).toBe(5000);
    expect(rpcTimeoutOf('journal_entries.list', 2000)).toBe(2000);
  });
});
