import { ConfigError } from '@acct/kit';
import { DEFAULT_FRESHNESS_WAIT_MS, loadReportingConfig } from './config';

describe('reporting config', () => {
  it('defaults to a 3 s freshness wait and a 10 min rebuild bound', () => {
    expect(loadReportingConfig({})).toEqual({ freshnessWaitMs: DEFAULT_FRESHNESS_WAIT_MS, rebuildTimeoutMs: 600_000 });
    expect(DEFAULT_FRESHNESS_WAIT_MS).toBe(3000);
  });

  it('reads its variables and refuses a value out of bounds, naming it', () => {
    expect(loadReportingConfig({ REPORTING_FRESHNESS_WAIT_MS: '1500', REPORTING_REBUILD_TIMEOUT_MS: '60000' })).toEqual({ freshnessWaitMs: 1500, rebuildTimeoutMs: 60_000 });
    expect(() => loadReportingConfig({ REPORTING_FRESHNESS_WAIT_MS: '0' })).toThrow(ConfigError);
    expect(() => loadReportingConfig({ REPORTING_FRESHNESS_WAIT_MS: '0' })).toThrow(/REPORTING_FRESHNESS_WAIT_MS/);
  });
});
