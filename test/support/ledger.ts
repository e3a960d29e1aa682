/**
 * The lines of the journal entries of one source document (an invoice, a bill, a payment ...), in
 * entry and line order, as `select` names them (columns of journal_lines `l` and journal_entries `e`).
 */
export function entryLines(sql: (q: string, params?: unknown[]) => Promise<any[]>, sourceType: string, sourceId: string, select: string): Promise<any[]> {
  return sql(
    `SELECT ${select} FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id
      WHERE e.source_type = ? AND e.source_id = ? ORDER BY e.created_at, l.entry_id, l.line_no`,
    [sourceType, sourceId],
  );
}
