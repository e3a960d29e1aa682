import { AppError, LEDGER_CHAIN_OPERATIONS, type LedgerChainDto, type LedgerVerificationDto, type TrustedContext } from '@acct/contracts';
import type { RpcClient } from '@acct/kit';

/**
 * GET /ledger/verification (API-DECISIONS §12): each posting service re-computes its own chain of
 * the key's organization and environment from its own tables; this answers them together, intact
 * only if every chain is.
 */
export async function verifyLedger(rpc: Pick<RpcClient, 'call'>, ctx: TrustedContext): Promise<LedgerVerificationDto> {
  const chains = await Promise.all(
    Object.values(LEDGER_CHAIN_OPERATIONS).map(async (op): Promise<LedgerChainDto> => {
      const reply = await rpc.call(op, { ctx, params: {}, query: {}, body: {} });
      if (!reply.ok) throw new AppError(reply.error.code, reply.error.message, reply.error.details);
      return reply.body as LedgerChainDto;
    }),
  );
  return {
    status: chains.every((c) => c.first_broken_entry_id === null) ? 'intact' : 'broken',
    entries_checked: chains.reduce((n, c) => n + c.entries, 0),
    chains,
  };
}
