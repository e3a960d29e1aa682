/** The one placeholder style (docs/data-access.md): SQL is written with `?`; pg wants `$1..$n`. */

/**
 * The `?` placeholders of `sql` numbered `$1..$n` for pg (the one placeholder style of the repo:
 * MikroORM's em.execute takes the same text). Refuses `$` outside quotes (a `$1` placeholder or
 * dollar quoting: write `?`), and `?` inside a quoted literal, identifier or comment (pg and knex
 * would disagree on what it is).
 */
export function positional(sql: string): string {
  let out = '';
  let n = 0;
  for (let i = 0; i < sql.length; i++) {
    const end = quotedEnd(sql, i);
    if (end !== -1) {
      const quoted = sql.slice(i, end);
      if (quoted.includes('?')) throw new Error(`SQL has a ? inside a quoted literal or comment (${quoted.trim()}): pass the value as a parameter`);
      out += quoted;
      i = end - 1;
    } else if (sql[i] === '$') {
      throw new Error(`SQL has a $ outside quotes: write every placeholder as ? (${sql.trim().slice(0, 80)})`);
    } else {
      out += sql[i] === '?' ? `$${++n}` : sql[i];
    }
  }
  return out;
}

/** Where the quoted literal, quoted identifier or comment that starts at `i` ends (exclusive); -1 if none starts there. */
function quotedEnd(sql: string, i: number): number {
  const c = sql[i]!;
  const [open, close] = c === "'" || c === '"' ? [c, c] : sql.startsWith('--', i) ? ['--', '\n'] : sql.startsWith('/*', i) ? ['/*', '*/'] : [];
  if (open === undefined || close === undefined) return -1;
  const at = sql.indexOf(close, i + open.length);
  return at === -1 ? sql.length : at + close.length;
}
