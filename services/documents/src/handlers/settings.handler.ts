import { single } from '@acct/contracts';
import { type RpcServer, scopeOf } from '@acct/kit';
import type { DocumentsDeps } from '../flows/deps';
import { putBranding, putSetting, readSetting } from '../flows/settings';

/** The settings of an organization and environment: read with their defaults, merged by PUT. */
export function registerSettingsHandlers(server: RpcServer, { orm }: DocumentsDeps): void {
  server.handle('settings.capabilities', () =>
    Promise.resolve({ ok: true, status: 200, body: single('capabilities', { document_branding: true, invoice_defaults: true, estimate_defaults: true }) }),
  );

  server.handle('settings.document_branding.get', async (req) => ({
    ok: true,
    status: 200,
    body: single('document_branding', await readSetting(orm, scopeOf(req.ctx), 'document_branding')),
  }));
  server.handle('settings.document_branding.put', async (req) => ({
    ok: true,
    status: 200,
    body: single('document_branding', await putBranding(orm, scopeOf(req.ctx), req.body)),
  }));

  server.handle('settings.invoice_defaults.get', async (req) => ({
    ok: true,
    status: 200,
    body: single('invoice_defaults', await readSetting(orm, scopeOf(req.ctx), 'invoice_defaults')),
  }));
  server.handle('settings.invoice_defaults.put', async (req) => ({
    ok: true,
    status: 200,
    body: single('invoice_defaults', await putSetting(orm, scopeOf(req.ctx), 'invoice_defaults', req.body)),
  }));

  server.handle('settings.estimate_defaults.get', async (req) => ({
    ok: true,
    status: 200,
    body: single('estimate_defaults', await readSetting(orm, scopeOf(req.ctx), 'estimate_defaults')),
  }));
  server.handle('settings.estimate_defaults.put', async (req) => ({
    ok: true,
    status: 200,
    body: single('estimate_defaults', await putSetting(orm, scopeOf(req.ctx), 'estimate_defaults', req.body)),
  }));
}
