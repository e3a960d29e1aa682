import type { ServiceWiring } from './service';
import { startBackground } from './service';

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
