import type { AppError } from '@acct/contracts';

/** The two actions on a bill or a vendor payment. */
export type Action = 'post' | 'reverse';

/** The one status each action moves a record from, and to (API-DECISIONS §5). */
export type Moves<S> = Record<Action, { from: S; to: S }>;

/**
 * 'move' when the action applies; 'same' when the record already is where the action leads (a
 * repeated action: answered as a replay, no second ledger effect); else the 409 of `refusal`.
 */
export function checkAction<S>(moves: Moves<S>, status: S, action: Action, refusal: () => AppError): 'move' | 'same' {
  const { from, to } = moves[action];
  if (status === to) return 'same';
  if (status === from) return 'move';
  throw refusal();
}

/** The past participle of an action, as messages say it. */
export const done = (action: Action) => (action === 'post' ? 'posted' : 'reversed');
