import { positional, statement } from './sql';

describe('positional', () => {
  it('numbers the ? placeholders $1..$n, casts and quoted text left as they are', () => {
    expect(positional(`SELECT a FROM t WHERE id = ? AND b = 'x''y' AND c = ANY(?::uuid[]) -- note\n LIMIT ?`)).toBe(
      `SELECT a FROM t WHERE id = $1 AND b = 'x''y' AND c = ANY($2::uuid[]) -- note\n LIMIT $3`,
    );
    expect(positional('SELECT 1')).toBe('SELECT 1');
  });

  it.each([
    ['a $n placeholder', 'UPDATE t SET a = $1 WHERE id = ?'],
    ['dollar quoting', 'SELECT $$x$$'],
    ['a ? in a literal', `SELECT 'why?' FROM t WHERE id = ?`],
    ['a ? in a quoted identifier', 'SELECT "a?" FROM t'],
    ['a ? in a comment', 'SELECT a FROM t /* why? */ WHERE id = ?'],
    ['a ? in an unterminated literal', `SELECT 'a?`],
  ])('refuses %s', (_, sql) => {
    expect(() => positional(sql)).toThrow(/\?|\$/);
  });
});

describe('statement', () => {
  it('is numbered once, at definition; the same name and SQL give the same statement', () => {
    const s = statement('t_sql_unit', 'UPDATE t SET a = ? WHERE id = ?');
    expect(s).toEqual({ name: 't_sql_unit', text: 'UPDATE t SET a = $1 WHERE id = $2' });
    expect(statement('t_sql_unit', 'UPDATE t SET a = ? WHERE id = ?')).toBe(s);
    expect(Object.isFrozen(s)).toBe(true);
  });

  it('refuses one name for two texts, and $n placeholders', () => {
    statement('t_sql_twice', 'SELECT 1');
    expect(() => statement('t_sql_twice', 'SELECT 2')).toThrow(/already defined/);
    expect(() => statement('t_sql_dollar', 'SELECT a FROM t WHERE id = $1')).toThrow(/write every placeholder as \?/);
  });
});
