import type { ApiKey } from '../entities';
import { checkRollHours, keyStatus, keyView } from './keys';

const NOW = new Date('2026-11-28T12:00:00Z');
const row = (over: Partial<ApiKey> = {}): ApiKey => ({
  id: 'k1',
  connectedAppId: 'a1',
  organizationId: 'o1',
  environment: 'test',
  keyPrefix: 'svc_test_AbCdEfGh',
  keyHash: 'f'.repeat(64),
  keyLast4: 'wXyZ',
  createdAt: new Date('2026-11-01T00:00:00Z'),
  revokedAt: null,
  expiresAt: null,
  lastUsedAt: null,
  ...over,
});

describe('key status and view', () => {
  it.each([
    ['active', {}],
    ['expiring', { expiresAt: new Date(NOW.getTime() + 1) }],
    ['revoked', { expiresAt: NOW }],
    ['revoked', { revokedAt: new Date('2026-11-02T00:00:00Z') }],
    ['revoked', { revokedAt: new Date('2026-11-02T00:00:00Z'), expiresAt: new Date(NOW.getTime() + 3_600_000) }],
  ] as const)('%s: %j', (status, over) => {
    expect(keyStatus(row(over), NOW)).toBe(status);
  });

  it('shows the first 12 and last 4 characters, never the hash; the first 12 alone for a key made before', () => {
    const v = keyView(row({ lastUsedAt: new Date('2026-11-27T00:00:00Z') }), NOW);
    expect(v).toEqual({
      id: 'k1',
      environment: 'test',
      prefix: 'svc_test_AbC…wXyZ',
      created_at: '2026-11-01T00:00:00.000Z',
      last_used_at: '2026-11-27T00:00:00.000Z',
      expires_at: null,
      status: 'active',
    });
    expect(keyView(row({ keyLast4: null }), NOW).prefix).toBe('svc_test_AbC…');
  });

  it('takes 0 to 168 whole hours to roll', () => {
    expect(checkRollHours(0)).toBe(0);
    expect(checkRollHours(168)).toBe(168);
    for (const bad of [-1, 169, 1.5, '1', null, undefined, Number.NaN]) expect(() => checkRollHours(bad)).toThrow(/0 to 168/);
  });
});
