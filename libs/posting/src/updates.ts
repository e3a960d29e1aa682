import { AppError, type Metadata, canonicalJson, labelOf, patchedMetadata } from '@acct/contracts';
import type { Scope } from '@acct/kit';
import type { Tx } from './unit-of-work';

/**
 * The rules every PATCH of a record shares (API-DECISIONS §11), as plain functions: a document
 * changes only while draft (metadata aside), and a record's `updated_at` grows with every change.
 * (Metadata merges by patchedMetadata of @acct/contracts.)
 */

/** The fields of a PATCH body it names (metadata aside): what only a draft may change. */
export function contentFields(body: Record<string, unknown>): string[] {
  return Object.keys(body).filter((k) => k !== 'metadata' && body[k] !== undefined);
}

/**
 * A document that is no longer a draft (an invoice posted, an estimate sent, a bill posted) takes
 * only metadata: any other field named is 409 conflict, whatever its value (issue `<kind>_<status>`).
 */
export function refuseUnlessDraft(kind: string, id: string, status: string, body: Record<string, unknown>): void {
  if (status === 'draft') return;
  const fields = contentFields(body);
  if (fields.length === 0) return;
  throw AppError.conflict(`${labelOf(kind)} ${id} is ${status}: only its metadata can change (${fields.join(', ')} sent).`, [
    ...fields.map((f) => ({ field: `/${f}`, issue: `${kind}_${status}`, message: `Only a draft ${kind} changes ${f}; send metadata alone.` })),
  ]);
}

const same = (a: unknown, b: unknown): boolean =>
  a instanceof Date || b instanceof Date ? a instanceof Date && b instanceof Date && a.getTime() === b.getTime() : canonicalJson(a) === canonicalJson(b);

/** The properties of `next` that differ from `current` (values compared as canonical JSON, dates by time). */
export function changesOf<E extends object>(current: E, next: Partial<E>): Partial<E> {
  const out: Partial<E> = {};
  for (const k of Object.keys(next) as (keyof E)[]) {
    if (!same(current[k], next[k])) out[k] = next[k];
  }
  return out;
}

/**
 * The `updated_at` of a change: now, but always after the previous one, so the services that keep
 * the newest copy of a record by it (reporting's parties) never take two changes for one.
 */
export function nextUpdatedAt(previous: Date, now = new Date()): Date {
  return now.getTime() > previous.getTime() ? now : new Date(previous.getTime() + 1);
}

/** How a PATCH remakes a line document of one kind: its create body from it, the create that makes it from that body, the fields a remake may change, its party. */
export interface DraftRemake<E, C, P extends keyof E> {
  content: (doc: E) => C;
  remake: (scope: Scope, content: C) => E;
  fields: readonly (keyof E)[];
  /** The document's party (customer, vendor), which a change must name one of the scope of (404 otherwise). */
  party: { field: P; require: (tx: Tx, partyId: E[P]) => Promise<void> };
}

/**
 * A PATCH of a line document (invoice, estimate, bill) under its row lock (`doc`, null when no
 * document of the scope has the id: 404): 409 unless draft (metadata aside); with content fields,
 * the document is made again from its content with the body over it (`remake`, the create's own
 * path: lines priced, dates and currency checked), and the `fields` of that copy that differ are
 * the changes; a changed party must exist (404 otherwise); metadata merges. The
 * changes are applied to `doc`, which is returned.
 */
export async function updateDraft<E extends { id: string; status: string; metadata: Metadata }, C extends object, P extends keyof E>(
  tx: Tx,
  kind: string,
  id: string,
  doc: E | null,
  body: Partial<C> & { metadata?: Metadata },
  d: DraftRemake<E, C, P>,
): Promise<E> {
  if (!doc) throw AppError.notFound(labelOf(kind), id);
  refuseUnlessDraft(kind, doc.id, doc.status, body);
  const { metadata, ...fields } = body;
  const remade = contentFields(body).length > 0 ? d.remake(tx.scope, { ...d.content(doc), ...fields }) : doc;
  const next = Object.fromEntries(d.fields.map((f) => [f, remade[f]])) as Partial<E>;
  const changes = changesOf(doc, { ...next, metadata: patchedMetadata(doc.metadata, metadata) });
  if (changes[d.party.field] !== undefined) await d.party.require(tx, changes[d.party.field] as E[P]);
  return Object.assign(doc, changes);
}
