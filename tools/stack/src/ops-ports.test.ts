import { SERVICE_MANIFEST } from '@acct/contracts';
import { MANIFEST_OPS_BASE, opsPortsFor } from './stack';

describe('ops ports of npm start (OPS_PORT_BASE)', () => {
  it('keeps the manifest defaults at the default base', () => {
    expect(MANIFEST_OPS_BASE).toBe(9100);
    const ports = opsPortsFor(MANIFEST_OPS_BASE);
    for (const s of SERVICE_MANIFEST) expect(ports[s.name]).toBe(s.opsPort);
  });

  it('shifts every port with the base, so two stacks on one machine do not clash', () => {
    const a = opsPortsFor(9100);
    const b = opsPortsFor(9200);
    for (const s of SERVICE_MANIFEST) expect(b[s.name]).toBe(s.opsPort + 100);
    expect(Object.values(a).filter((p) => Object.values(b).includes(p))).toEqual([]);
  });

  it('gives none when the base is 0: each service binds a free port itself and reports it', () => {
    expect(opsPortsFor(0)).toEqual({});
  });
});
