import { disabledReason, pickClaims } from './claims';

describe('claims', () => {
  const c = (id: string, endpoint_id: string) => ({ id, endpoint_id });

  it('takes the oldest first, at most the limit and at most the free slots of each endpoint', () => {
    const candidates = [c('1', 'a'), c('2', 'a'), c('3', 'b'), c('4', 'a'), c('5', 'c'), c('6', 'b')];
    expect(pickClaims(candidates, 10, () => 2)).toEqual(['1', '2', '3', '5', '6']);
    expect(pickClaims(candidates, 3, () => 2)).toEqual(['1', '2', '3']);
    expect(pickClaims(candidates, 10, (e) => (e === 'a' ? 0 : 1))).toEqual(['3', '5']);
    expect(pickClaims([], 10, () => 2)).toEqual([]);
  });

  it('says since when every delivery failed and after how long the endpoint was disabled', () => {
    expect(disabledReason(new Date('2026-01-01T00:00:00Z'), 3 * 86_400_000)).toBe('Disabled automatically: every delivery failed since 2026-01-01T00:00:00.000Z (72 h).');
  });
});
