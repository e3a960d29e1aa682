import { AppError } from '@acct/contracts';
import { type Moves, checkAction, done } from './actions';

const MOVES: Moves<string> = { post: { from: 'a', to: 'b' }, reverse: { from: 'b', to: 'c' } };
const refusal = () => AppError.conflict('refused', []);

describe('checkAction', () => {
  it('moves from the action’s from-status, repeats at its to-status, refuses anything else', () => {
    expect(checkAction(MOVES, 'a', 'post', refusal)).toBe('move');
    expect(checkAction(MOVES, 'b', 'post', refusal)).toBe('same');
    expect(() => checkAction(MOVES, 'c', 'post', refusal)).toThrow('refused');
    expect(checkAction(MOVES, 'b', 'reverse', refusal)).toBe('move');
    expect(checkAction(MOVES, 'c', 'reverse', refusal)).toBe('same');
    expect(() => checkAction(MOVES, 'a', 'reverse', refusal)).toThrow('refused');
  });

  it('says what an action did', () => {
    expect([done('post'), done('reverse')]).toEqual(['posted', 'reversed']);
  });
});
