import type { Orm } from './db';

interface DbColumn {
  table_name: string;
  column_name: string;
  data_type: string;
  udt_name: string;
  is_nullable: 'YES' | 'NO';
}

/** information_schema's name of a MikroORM column type, for the types our entities use. */
function pgType(columnType: string): string {
  const t = columnType.toLowerCase().replace(/\(.*\)$/, '');
  if (t.endsWith('[]')) return `_${pgType(t.slice(0, -2)).replace('character varying', 'varchar')}`;
  const aliases: Record<string, string> = {
    timestamptz: 'timestamp with time zone',
    'timestamp with time zone': 'timestamp with time zone',
    int: 'integer',
    int4: 'integer',
    int8: 'bigint',
    bool: 'boolean',
    varchar: 'character varying',
  };
  return aliases[t] ?? t;
}

/**
 * Where the entities and the migrated schema disagree: a table or column an entity maps that the
 * migrations did not create, a column of another type or nullability, or a column the migrations
 * created (in an entity's table) that no entity property maps. Empty when they agree. Indexes,
 * checks and triggers live in the migrations only, so they are not compared.
 */
export async function schemaDrift(orm: Orm, schema: string): Promise<string[]> {
  const rows = await orm.em
    .getConnection()
    .execute<DbColumn[]>(
      `SELECT table_name, column_name, data_type, udt_name, is_nullable FROM information_schema.columns WHERE table_schema = ? ORDER BY table_name, ordinal_position`,
      [schema],
    );
  const byTable = new Map<string, Map<string, DbColumn>>();
  for (const r of rows) {
    const cols = byTable.get(r.table_name) ?? new Map<string, DbColumn>();
    cols.set(r.column_name, r);
    byTable.set(r.table_name, cols);
  }
  const problems: string[] = [];
  for (const meta of Object.values(orm.getMetadata().getAll())) {
    if (meta.embeddable || meta.virtual) continue;
    const cols = byTable.get(meta.tableName);
    if (!cols) {
      problems.push(`${meta.className}: table ${schema}.${meta.tableName} does not exist`);
      continue;
    }
    const mapped = new Set<string>();
    for (const prop of meta.props) {
      if (prop.persist === false) continue;
      for (const [i, field] of (prop.fieldNames ?? []).entries()) {
        mapped.add(field);
        const col = cols.get(field);
        if (!col) {
          problems.push(`${meta.className}.${prop.name}: column ${meta.tableName}.${field} does not exist`);
          continue;
        }
        const want = pgType(prop.columnTypes?.[i] ?? '');
        if (want !== col.data_type && want !== col.udt_name) {
          problems.push(`${meta.className}.${prop.name}: ${meta.tableName}.${field} is ${col.data_type}, the entity says ${want}`);
        }
        const nullable = col.is_nullable === 'YES';
        if (Boolean(prop.nullable) !== nullable) {
          problems.push(
            `${meta.className}.${prop.name}: ${meta.tableName}.${field} is ${nullable ? 'NULL' : 'NOT NULL'}, the entity says ${prop.nullable ? 'nullable' : 'required'}`,
          );
        }
      }
    }
    for (const field of cols.keys()) {
      if (!mapped.has(field)) problems.push(`${meta.className}: column ${meta.tableName}.${field} is not mapped by the entity`);
    }
  }
  return problems;
}
