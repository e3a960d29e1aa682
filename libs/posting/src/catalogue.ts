import { type EventType, EVENT_TYPES, eventErrors } from '@acct/contracts';

/**
 * Where outbox rows disagree with the event catalogue (libs/contracts EventMap): an unknown subject
 * or type, an envelope that lacks its fields, or a payload the type's schema refuses. Empty when
 * every row is a valid event. Used by the services' integration tests over the rows they wrote.
 */
export function catalogueErrors(prefix: string, rows: { subject: string; payload: unknown }[]): string[] {
  const out: string[] = [];
  for (const [i, row] of rows.entries()) {
    const where = `row ${i} (${row.subject})`;
    const p = row.payload as Record<string, unknown> | null;
    if (!p || typeof p !== 'object') {
      out.push(`${where}: payload is not an object`);
      continue;
    }
    let type: EventType;
    let body: unknown;
    if (row.subject.startsWith(`${prefix}.events.posting.`)) {
      type = 'journal_entry.posted';
      body = p;
    } else {
      const m = /^[^.]+\.events\.(outbound|reference)\.(.+)$/.exec(row.subject);
      const t = m?.[2];
      if (!m || !row.subject.startsWith(`${prefix}.`) || !t || !(EVENT_TYPES as string[]).includes(t) || p.type !== t) {
        out.push(`${where}: not a subject/type of the catalogue (type ${String(p.type)})`);
        continue;
      }
      type = t as EventType;
      body = p.data;
      const envelope =
        m[1] === 'outbound'
          ? ['id', 'type', 'created_at', 'organization_id', 'connected_app_id', 'environment', 'data']
          : ['id', 'type', 'created_at', 'organization_id', 'environment', 'data'];
      const missing = envelope.filter((k) => !(k in p));
      if (missing.length) out.push(`${where}: envelope lacks ${missing.join(', ')}`);
    }
    for (const d of eventErrors(type, body)) out.push(`${where}: ${type} ${d.field} ${d.issue}: ${d.message}`);
  }
  return out;
}
