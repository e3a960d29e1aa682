import { SubscriptionIndex } from './subscriptions';

describe('SubscriptionIndex', () => {
  const org = '00000000-0000-4000-8000-000000000001';
  const app = '00000000-0000-4000-8000-000000000002';
  const other = '00000000-0000-4000-8000-000000000003';
  const index = new SubscriptionIndex('7', [
    { organization_id: org, connected_app_id: app, environment: 'test', event_types: ['invoice.posted'] },
    { organization_id: org, connected_app_id: app, environment: 'test', event_types: ['payment.posted'] },
  ]);
  const event = (over: Partial<{ organization_id: string; connected_app_id: string; environment: string; type: string }> = {}) => ({
    organization_id: org,
    connected_app_id: app,
    environment: 'test',
    type: 'invoice.posted',
    ...over,
  });

  it('wants an event whose scope has an enabled endpoint subscribed to its type (any of its endpoints)', () => {
    expect(index.wants(event())).toBe(true);
    expect(index.wants(event({ type: 'payment.posted' }))).toBe(true);
    expect(index.version).toBe('7');
    expect(index.scopes).toBe(1);
  });

  it('does not want an event of another type, environment, connected app or organization', () => {
    expect(index.wants(event({ type: 'bill.posted' }))).toBe(false);
    expect(index.wants(event({ environment: 'live' }))).toBe(false);
    expect(index.wants(event({ connected_app_id: other }))).toBe(false);
    expect(index.wants(event({ organization_id: other }))).toBe(false);
    expect(new SubscriptionIndex('1', []).wants(event())).toBe(false);
  });
});
