import { Migration } from '@mikro-orm/migrations';
import { versionsOf } from './db';

class Migration20990101000001First extends Migration {
  async up(): Promise<void> {}
}
class Migration20990101000002Second extends Migration {
  async up(): Promise<void> {}
}

describe('versionsOf', () => {
  it('names each version by its class, in the order given', () => {
    expect(versionsOf(Migration20990101000001First, Migration20990101000002Second)).toEqual([
      { name: 'Migration20990101000001First', class: Migration20990101000001First },
      { name: 'Migration20990101000002Second', class: Migration20990101000002Second },
    ]);
  });
});
