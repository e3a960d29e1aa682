import { AppError, type EstimateStatus } from '@acct/contracts';

export type { EstimateStatus };

/** Moves POST /estimates/{id}/status allows (API-DECISIONS §5); converted comes only from convert. */
export const ESTIMATE_MOVES: Record<EstimateStatus, readonly EstimateStatus[]> = {
  draft: ['sent', 'accepted'],
  sent: ['accepted', 'declined', 'expired'],
  accepted: [],
  declined: [],
  expired: [],
  converted: [],
};

/** 'same' means the estimate already has that status: a repeated action, answered as a replay. */
export function checkEstimateMove(from: EstimateStatus, to: EstimateStatus): 'move' | 'same' {
  if (from === to) return 'same';
  if (ESTIMATE_MOVES[from].includes(to)) return 'move';
  throw AppError.conflict(`An estimate cannot go from ${from} to ${to}.`, [
    { field: '/status', issue: 'invalid_transition', message: `Allowed from ${from}: ${ESTIMATE_MOVES[from].join(', ') || 'none'}.` },
  ]);
}
