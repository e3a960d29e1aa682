import type { ServiceWiring } from './service';
import { startBackground, startWorkers, type Worker } from './service';

describe('startBackground', () => {
  const wiring = { name: 'webhook-dispatcher' } as ServiceWiring;

  it('starts nothing for a service without a start hook', async () => {
    expect(await startBackground({ name: 'payables' }, wiring)).toEqual([]);
  });

  it('starts the hook once with the wiring and names its shutdown steps after the service', async () => {
    const seen: ServiceWiring[] = [];
    const stopped: string[] = [];
    const steps = await startBackground(
      {
        name: 'webhook-dispatcher',
        start: async (w) => {
          seen.push(w);
          return [{ name: 'workers', run: async () => void stopped.push('workers') }];
        },
      },
      wiring,
    );
    expect(seen).toEqual([wiring]);
    expect(steps.map((s) => s.name)).toEqual(['webhook-dispatcher:workers']);
    await steps[0]!.run();
    expect(stopped).toEqual(['workers']);
  });
});

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
