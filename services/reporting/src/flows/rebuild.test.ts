import { rebuildProgress } from './rebuild';

describe('rebuildProgress', () => {
  it('gives applied of total, the average rate so far and the time left at that rate', () => {
    expect(rebuildProgress(1000, 5000, 4000, 600_000)).toEqual({ applied: 1000, total: 5000, rate_per_s: 250, eta_s: 16, elapsed_ms: 4000, timeout_ms: 600_000 });
  });

  it('has no ETA before anything is applied, and 0 once caught up', () => {
    expect(rebuildProgress(0, 5000, 500, 1000).eta_s).toBeNull();
    expect(rebuildProgress(0, 0, 0, 1000)).toMatchObject({ rate_per_s: 0, eta_s: 0 });
    expect(rebuildProgress(70, 70, 1000, 1000)).toMatchObject({ rate_per_s: 70, eta_s: 0 });
  });
});
