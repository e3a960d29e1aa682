import { checkEstimateMove, ESTIMATE_MOVES, type EstimateStatus } from './estimates';
import { caught } from '@acct/testing';

const STATUSES: EstimateStatus[] = ['draft', 'sent', 'accepted', 'declined', 'expired', 'converted'];

describe('ESTIMATE_MOVES', () => {
  it('is the table of API-DECISIONS §5', () => {
    const moves = STATUSES.flatMap((from) => ESTIMATE_MOVES[from].map((to) => `${from} → ${to}`));
    expect(moves).toEqual(['draft → sent', 'draft → accepted', 'sent → accepted', 'sent → declined', 'sent → expired']);
    expect(Object.keys(ESTIMATE_MOVES).sort()).toEqual([...STATUSES].sort());
  });

  it('never lists converted (it only comes from convert) nor a move to the same status', () => {
    for (const from of STATUSES) {
      expect(ESTIMATE_MOVES[from]).not.toContain('converted');
      expect(ESTIMATE_MOVES[from]).not.toContain(from);
    }
  });
});

describe('checkEstimateMove', () => {
  const allowed = STATUSES.flatMap((from) => ESTIMATE_MOVES[from].map((to) => [from, to] as const));

  it('has five allowed moves', () => {
    expect(allowed).toHaveLength(5);
  });

  it.each(allowed)('allows %s → %s as a move', (from, to) => {
    expect(checkEstimateMove(from, to)).toBe('move');
  });

  it.each(STATUSES)('answers %s → itself as same', (s) => {
    expect(checkEstimateMove(s, s)).toBe('same');
  });

  it.each([
    ['draft', 'declined'],
    ['accepted', 'sent'],
    ['declined', 'accepted'],
    ['draft', 'expired'],
    ['sent', 'draft'],
    ...STATUSES.filter((s) => s !== 'converted').map((to) => ['converted', to]),
  ] as [EstimateStatus, EstimateStatus][])('refuses %s → %s as a conflict', (from, to) => {
    const err = caught(() => checkEstimateMove(from, to));
    expect(err.code).toBe('conflict');
    expect(err.message).toContain(from);
    expect(err.message).toContain(to);
    expect(err.details).toHaveLength(1);
    expect(err.details[0]).toMatchObject({ field: '/status', issue: 'invalid_transition' });
  });

  it('lists the allowed moves, or none, in the detail', () => {
    expect(caught(() => checkEstimateMove('draft', 'declined')).details[0]?.message).toBe('Allowed from draft: sent, accepted.');
    expect(caught(() => checkEstimateMove('converted', 'sent')).details[0]?.message).toBe('Allowed from converted: none.');
  });

  it('refuses converting through a status move', () => {
    for (const from of STATUSES.filter((s) => s !== 'converted')) {
      expect(caught(() => checkEstimateMove(from, 'converted')).details[0]?.issue).toBe('invalid_transition');
    }
  });

  const pairs = STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as const));

  it('covers all 36 pairs', () => {
    expect(pairs).toHaveLength(36);
  });

  it.each(pairs)('%s → %s agrees with the table', (from, to) => {
    if (from === to) {
      expect(checkEstimateMove(from, to)).toBe('same');
    } else if (ESTIMATE_MOVES[from].includes(to)) {
      expect(checkEstimateMove(from, to)).toBe('move');
    } else {
      const err = caught(() => checkEstimateMove(from, to));
      expect(err.code).toBe('conflict');
      expect(err.details[0]?.issue).toBe('invalid_transition');
    }
  });
});
