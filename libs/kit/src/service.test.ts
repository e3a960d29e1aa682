import { startWorkers, type Worker } from './service';

describe('startWorkers', () => {
  it('starts workers in order and returns shutdown steps that stop them in reverse', async () => {
    const calls: string[] = [];
    const worker = (name: string): Worker => ({
      name,
      start: () => Promise.resolve(void calls.push(`start ${name}`)),
      stop: () => Promise.resolve(void calls.push(`stop ${name}`)),
    });
    const steps = await startWorkers([worker('a'), worker('b')]);
    expect(calls).toEqual(['start a', 'start b']);
    expect(steps.map((s) => s.name)).toEqual(['b', 'a']);
    for (const s of steps) await s.run();
    expect(calls).toEqual(['start a', 'start b', 'stop b', 'stop a']);
  });

  it('has nothing to stop when a service has no workers', async () => {
    expect(await startWorkers([])).toEqual([]);
  });
});
