import { createDb, migrate, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { catalogMigrations } from '../src/migrations';

/** Data migrations over rows as earlier versions of the service left them, on real PostgreSQL. */
describe('catalog migrations over data of earlier versions', () => {
  const schema = 'catalog';
  let database: testing.TestDatabase;
  let db: Knex;
  const names = catalogMigrations.map((m) => m.name);
  const upTo = (name: string) => catalogMigrations.slice(0, names.indexOf(name));

  beforeAll(async () => {
    database = await testing.createTestDatabase();
    db = createDb(database.url, schema);
    // The schema as it was before the migrations under test.
    await migrate(db, schema, upTo('004_stock_moves_natural_key'));
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const insertOne = async (table: string, values: Record<string, unknown>): Promise<number> => {
    const [row] = await db(table).insert(values).returning<Array<{ id: number }>>('id');
    return Number(row!.id);
  };
  const move = (values: Record<string, unknown>) =>
    insertOne('stock_moves', { org_id: 1, source: 'document', adjustment_type: 'invoiceout', document_type: 'invoiceout', ...values });

  it('keeps the first move of a document and product, lists the later ones, and refuses any new one', async () => {
    const a = await insertOne('products', { org_id: 1, name: 'A' });
    const b = await insertOne('products', { org_id: 1, name: 'B' });
    // Document 7 moved product A twice (an event applied again after its inbox row was purged).
    const first = await move({ product_id: a, document_id: 7, document_number: 'INV-7' });
    const again = await move({ product_id: a, document_id: 7, document_number: 'INV-7' });
    const other = await move({ product_id: b, document_id: 7, document_number: 'INV-7' });
    await move({ product_id: a, document_id: 7, org_id: 2, document_number: 'INV-7' });
    await insertOne('stock_moves', { org_id: 1, product_id: a, source: 'adjustment', adjustment_type: 'count' });
    await insertOne('stock_moves', { org_id: 1, product_id: a, source: 'adjustment', adjustment_type: 'count' });
    const before = await db('stock_moves').orderBy('id');

    await migrate(db, schema, catalogMigrations);

    expect(await db('stock_moves').orderBy('id')).toEqual(before);
    expect(await db('stock_move_duplicates').select('move_id', 'first_move_id')).toEqual([{ move_id: again, first_move_id: first }]);
    await expect(move({ product_id: a, document_id: 7, document_number: 'INV-7' })).rejects.toMatchObject({ code: '23505' });
    await expect(move({ product_id: b, document_id: 7, document_number: 'INV-7' })).rejects.toMatchObject({ code: '23505' });
    expect(await db('stock_moves').count<{ n: string }[]>({ n: '*' })).toEqual([{ n: before.length }]);
    // Other documents, and moves that follow no document, are as free as before.
    await move({ product_id: a, document_id: 8, document_number: 'INV-8' });
    await insertOne('stock_moves', { org_id: 1, product_id: b, source: 'adjustment', adjustment_type: 'count' });
    expect(other).toBeGreaterThan(first);
  });
});
