import { formatRebuildProgress, formatSeconds } from './rebuild';

describe('reporting rebuild progress (CLI output)', () => {
  it('prints events applied of total, percent, rate and ETA on one line', () => {
    const line = formatRebuildProgress({ applied: 1200, total: 5000, rate_per_s: 310.46, eta_s: 13, elapsed_ms: 3865, timeout_ms: 600_000 });
    expect(line).toBe('rebuild: 1,200 of 5,000 events applied (24.0%), 310.5/s, ETA 13 s');
    expect(line).toMatch(/^rebuild: [\d,]+ of [\d,]+ events applied \(\d+\.\d%\), \d+\.\d\/s, ETA .+$/);
  });

  it('says when the ETA is unknown (nothing applied yet) and when an empty stream is done', () => {
    expect(formatRebuildProgress({ applied: 0, total: 10, rate_per_s: 0, eta_s: null, elapsed_ms: 0, timeout_ms: 1000 })).toBe(
      'rebuild: 0 of 10 events applied (0.0%), 0.0/s, ETA unknown',
    );
    expect(formatRebuildProgress({ applied: 0, total: 0, rate_per_s: 0, eta_s: 0, elapsed_ms: 5, timeout_ms: 1000 })).toBe(
      'rebuild: 0 of 0 events applied (100.0%), 0.0/s, ETA 0 s',
    );
  });

  it('writes durations in s, min and h', () => {
    expect([formatSeconds(0), formatSeconds(59.4), formatSeconds(725), formatSeconds(7385)]).toEqual(['0 s', '59 s', '12 min 5 s', '2 h 3 min']);
  });
});
