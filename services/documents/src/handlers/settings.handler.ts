import { single } from '@acct/contracts';
import { type RpcServer, scopeOf } from '@acct/kit';
import type { SettingsKind, SettingsOf } from '../domain/settings';
import type { DocumentsDeps } from '../flows/deps';
import { putBranding, putSetting, readSetting } from '../flows/settings';

/** The settings of an organization and environment: read with their defaults, merged by PUT. */
export function registerSettingsHandlers(server: RpcServer, { orm }: DocumentsDeps): void {
  const reply = async <K extends SettingsKind>(kind: K, value: Promise<SettingsOf[K]>) => ({ ok: true as const, status: 200 as const, body: single(kind, await value) });

  server.handle('settings.capabilities', () =>
    Promise.resolve({ ok: true, status: 200, body: single('capabilities', { document_branding: true, invoice_defaults: true, estimate_defaults: true }) }),
  );
  server.handle('settings.document_branding.get', (req) => reply('document_branding', readSetting(orm, scopeOf(req.ctx), 'document_branding')));
  server.handle('settings.document_branding.put', (req) => reply('document_branding', putBranding(orm, scopeOf(req.ctx), req.body)));
  server.handle('settings.invoice_defaults.get', (req) => reply('invoice_defaults', readSetting(orm, scopeOf(req.ctx), 'invoice_defaults')));
  server.handle('settings.invoice_defaults.put', (req) => reply('invoice_defaults', putSetting(orm, scopeOf(req.ctx), 'invoice_defaults', req.body)));
  server.handle('settings.estimate_defaults.get', (req) => reply('estimate_defaults', readSetting(orm, scopeOf(req.ctx), 'estimate_defaults')));
  server.handle('settings.estimate_defaults.put', (req) => reply('estimate_defaults', putSetting(orm, scopeOf(req.ctx), 'estimate_defaults', req.body)));
}
