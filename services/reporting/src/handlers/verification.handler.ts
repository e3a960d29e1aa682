import { single } from '@acct/contracts';
import type { RpcClient, RpcServer } from '@acct/kit';
import { verifyLedger } from '../flows/verification';

/** The tamper-evident journal's verification (API-DECISIONS §12), asked of the posting services. */
export function registerVerificationHandlers(server: RpcServer, rpc: Pick<RpcClient, 'call'>): void {
  server.handle('ledger.verification', async (req) => ({ ok: true, status: 200, body: single('ledger_verification', await verifyLedger(rpc, req.ctx)) }));
}
