import { ConfigError, DEFAULT_ACK_WAIT_MS } from '@acct/kit';
import { DEFAULT_FRESHNESS_WAIT_MS, loadReportingConfig } from './config';

describe('reporting config', () => {
  it('defaults to a 3 s freshness wait, a 10 min rebuild bound and a 5 s ack wait', () => {
    expect(loadReportingConfig({})).toEqual({ freshnessWaitMs: DEFAULT_FRESHNESS_WAIT_MS, rebuildTimeoutMs: 600_000, ackWaitMs: DEFAULT_ACK_WAIT_MS });
    expect(DEFAULT_FRESHNESS_WAIT_MS).toBe(3000);
    expect(DEFAULT_ACK_WAIT_MS).toBe(5000);
  });

  it('reads its variables and refuses a value out of bounds, naming it', () => {
    expect(loadReportingConfig({ REPORTING_FRESHNESS_WAIT_MS: '1500', REPORTING_REBUILD_TIMEOUT_MS: '60000', REPORTING_ACK_WAIT_MS: '2000' })).toEqual({
      freshnessWaitMs: 1500,
      rebuildTimeoutMs: 60_000,
      ackWaitMs: 2000,
    });
    expect(() => loadReportingConfig({ REPORTING_ACK_WAIT_MS: '10' })).toThrow(/REPORTING_ACK_WAIT_MS/);
    expect(() => loadReportingConfig({ REPORTING_FRESHNESS_WAIT_MS: '0' })).toThrow(ConfigError);
    expect(() => loadReportingConfig({ REPORTING_FRESHNESS_WAIT_MS: '0' })).toThrow(/REPORTING_FRESHNESS_WAIT_MS/);
  });
});
