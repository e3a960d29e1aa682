import { SERVICE_MANIFEST } from '@acct/contracts';
import { MANIFEST_OPS_BASE, opsPortsFor } from './stack';

describe('ops ports of npm start (OPS_PORT_BASE)', () => {
  it('keeps the manifest defaults at the default base', async () => {
    expect(MANIFEST_OPS_BASE).toBe(9100);
    const ports = await opsPortsFor(MANIFEST_OPS_BASE);
    for (const s of SERVICE_MANIFEST) expect(ports[s.name]).toBe(s.opsPort);
  });

  it('shifts every port with the base, so two stacks on one machine do not clash', async () => {
    const a = await opsPortsFor(9100);
    const b = await opsPortsFor(9200);
    for (const s of SERVICE_MANIFEST) expect(b[s.name]).toBe(s.opsPort + 100);
    expect(Object.values(a).filter((p) => Object.values(b).includes(p))).toEqual([]);
  });

  it('picks distinct free ports when the base is 0', async () => {
    const ports = Object.values(await opsPortsFor(0));
    expect(ports).toHaveLength(SERVICE_MANIFEST.length);
    expect(new Set(ports).size).toBe(ports.length);
    for (const p of ports) expect(p).toBeGreaterThan(0);
  });
});
