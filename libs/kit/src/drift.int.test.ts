import { EntitySchema } from '@mikro-orm/core';
import { Migration } from '@mikro-orm/migrations';
import { freshDatabase, type TestDatabase } from '@acct/testing';
import { migrate, openOrm } from './db';
import { schemaDrift } from './drift';

interface Thing {
  id: string;
  name: string;
  note: string | null;
  tags: string[];
  at: Date;
}
const ThingSchema = new EntitySchema<Thing>({
  name: 'Thing',
  tableName: 'things',
  properties: {
    id: { type: 'uuid', primary: true },
    name: { type: 'text' },
    note: { type: 'text', nullable: true },
    tags: { type: 'text[]' },
    at: { type: 'timestamptz', columnType: 'timestamptz' },
  },
});

const migration = (sql: string) =>
  class extends Migration {
    override async up(): Promise<void> {
      this.addSql(sql);
    }
  };

describe('schemaDrift against real Postgres', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase('acct_kit_drift');
  });
  afterAll(async () => db.drop());

  async function driftOf(schema: string, ddl: string): Promise<string[]> {
    const orm = await openOrm({ url: db.url, schema, entities: [ThingSchema], migrations: [{ name: 'M1', class: migration(ddl) }], poolMax: 2 });
    try {
      await migrate(orm);
      return await schemaDrift(orm, schema);
    } finally {
      await orm.close(true);
    }
  }

  it('finds none when the migration matches the entity', async () => {
    expect(await driftOf('drift_ok', 'CREATE TABLE things (id uuid PRIMARY KEY, name text NOT NULL, note text, tags text[] NOT NULL, at timestamptz NOT NULL)')).toEqual([]);
  });

  it('names a missing column, a wrong type, a wrong nullability and an unmapped column', async () => {
    const drift = await driftOf('drift_bad', 'CREATE TABLE things (id uuid PRIMARY KEY, name integer NOT NULL, note text NOT NULL, at timestamptz NOT NULL, extra text)');
    expect(drift).toEqual([
      'Thing.name: things.name is integer, the entity says text',
      'Thing.note: things.note is NOT NULL, the entity says nullable',
      'Thing.tags: column things.tags does not exist',
      'Thing: column things.extra is not mapped by the entity',
    ]);
  });

  it('names a table the migrations never created', async () => {
    expect(await driftOf('drift_none', 'CREATE TABLE other (id int)')).toEqual(['Thing: table drift_none.things does not exist']);
  });
});
