import { AppError } from '@acct/contracts';
import type { Orm, Scope } from '@acct/kit';
import { LOGO_MAX_BYTES } from '../config';
import { type SettingsKind, type SettingsOf, withDefaults } from '../domain/settings';
import { findDocument, getSettings, mergeSettings } from '../queries';

/** One setting of a scope, its defaults filled in. */
export async function readSetting<K extends SettingsKind>(orm: Orm, s: Scope, kind: K): Promise<SettingsOf[K]> {
  return withDefaults(kind, await getSettings(orm.em.fork(), s, kind));
}

/** Every setting of a scope with their defaults filled in (renders and the portal). */
export async function readSettings(orm: Orm, s: Scope) {
  return {
    branding: await readSetting(orm, s, 'document_branding'),
    invoice: await readSetting(orm, s, 'invoice_defaults'),
    estimate: await readSetting(orm, s, 'estimate_defaults'),
  };
}

/** Merges the given fields into the stored ones (fields left out keep their value); the result with defaults. */
export async function putSetting<K extends SettingsKind>(orm: Orm, s: Scope, kind: K, patch: Partial<SettingsOf[K]>): Promise<SettingsOf[K]> {
  return withDefaults(kind, await mergeSettings(orm.em.fork(), s, kind, patch));
}

/** The branding, after checking that its logo (if named) is a PNG or JPEG document of the scope, small enough to render. */
export async function putBranding(orm: Orm, s: Scope, patch: Partial<SettingsOf['document_branding']>): Promise<SettingsOf['document_branding']> {
  const logo = patch.logo_document_id;
  if (logo) {
    const doc = await findDocument(orm.em.fork(), s, logo);
    if (!doc) throw AppError.notFound('Document', logo);
    if (doc.content_type !== 'image/png' && doc.content_type !== 'image/jpeg') {
      throw AppError.validation('The logo must be a PNG or JPEG document.', [
        { field: '/logo_document_id', issue: 'invalid_type', message: `Document ${logo} is ${doc.content_type}.` },
      ]);
    }
    if (Number(doc.size_bytes) > LOGO_MAX_BYTES) {
      throw AppError.validation(`The logo must be at most ${LOGO_MAX_BYTES} bytes.`, [
        { field: '/logo_document_id', issue: 'too_large', message: `Document ${logo} is ${doc.size_bytes} bytes.` },
      ]);
    }
  }
  return putSetting(orm, s, 'document_branding', patch);
}
