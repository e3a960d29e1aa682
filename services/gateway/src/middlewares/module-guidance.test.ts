import type { RouteDef } from '@acct/contracts';
import { appOf, json, principal, serve, withPrincipal, type Served } from '../testing/fakes';
import { type ModuleEnforcement, moduleGuidance } from './module-guidance';

describe('moduleGuidance', () => {
  const route = (module: RouteDef['module']) => ({ operationId: 'x', method: 'GET', path: '/x', module }) as RouteDef;
  const servers: Served[] = [];
  const serveFor = async (module: RouteDef['module'], enforcement: ModuleEnforcement) => {
    const s = await serve(
      appOf(withPrincipal(principal({ enabledModules: new Set(['customers']) })), moduleGuidance(route(module), enforcement), async (ctx) => {
        ctx.body = { ok: true };
      }),
    );
    servers.push(s);
    return s;
  };
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  it('passes an enabled module without a warning', async () => {
    const r = await (await serveFor('customers', 'hard')).call('/');
    expect(r.status).toBe(200);
    expect(r.headers.get('module-warning')).toBeNull();
  });

  it('passes a route of no module', async () => {
    expect((await (await serveFor(null, 'hard')).call('/')).status).toBe(200);
  });

  it('warns about a disabled module under soft enforcement', async () => {
    const r = await (await serveFor('invoices', 'soft')).call('/');
    expect(r.status).toBe(200);
    expect(r.headers.get('module-warning')).toBe('module "invoices" is not enabled for this organization; enable it in the dashboard');
  });

  it('refuses a disabled module with 403 module_disabled under hard enforcement', async () => {
    const r = await (await serveFor('invoices', 'hard')).call('/');
    expect(r.status).toBe(403);
    expect((await json(r)).error).toMatchObject({ code: 'module_disabled', message: 'The invoices module is not enabled for this organization.' });
  });
});
