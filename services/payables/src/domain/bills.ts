import { AppError, type BillStatus } from '@acct/contracts';
import { type Action, type Moves, checkAction, done } from './actions';

export type { BillStatus };

/** What is still owed on a bill: total less payments while posted; nothing while draft or once reversed. */
export function openBalance(b: { status: BillStatus; totalCents: number; paidCents: number }): number {
  return b.status === 'posted' ? b.totalCents - b.paidCents : 0;
}

export type BillAction = Action;

/** The one status each action moves a bill from, and to (API-DECISIONS §5). */
export const BILL_MOVES: Moves<BillStatus> = { post: { from: 'draft', to: 'posted' }, reverse: { from: 'posted', to: 'reversed' } };

/** checkAction for bills: draft → posted → reversed. */
export function checkBillAction(id: string, status: BillStatus, action: BillAction): 'move' | 'same' {
  const hint = action === 'post' ? 'A reversed bill stays reversed: create a new bill.' : 'Only a posted bill can be reversed.';
  return checkAction(BILL_MOVES, status, action, () =>
    AppError.conflict(`Bill ${id} is ${status}: it cannot be ${done(action)}.`, [{ field: '/status', issue: `bill_${status}`, message: hint }]),
  );
}

/** A bill with payments on it cannot be reversed: the payments must be reversed first. */
export function checkNoPayments(b: { id: string; paidCents: number }): void {
  if (b.paidCents > 0) {
    throw AppError.conflict(`Bill ${b.id} has ${b.paidCents} cents of vendor payments allocated to it: reverse those payments first.`, [
      { field: '/status', issue: 'bill_has_payments', message: 'Reverse the vendor payments allocated to this bill first.' },
    ]);
  }
}
