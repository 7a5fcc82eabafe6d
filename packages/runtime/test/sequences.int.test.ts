import { createDb, type Knex } from '../src/db';
import { nextDocumentNumber, type NumberedTable } from '../src/sequences';
import { createTestDatabase, type TestDatabase } from '../src/testing/infra';

/** A series' numbers as a documents table keeps them, and the one statement that takes the next. */
describe('gapless document numbers (nextDocumentNumber)', () => {
  let database: TestDatabase;
  let db: Knex;
  const docs: NumberedTable = { table: 'docs', column: 'number' };
  const statements: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'public', 8);
    await db.raw(
      'create table document_sequences (org_id int not null, series varchar(20) not null, last_value bigint not null, primary key (org_id, series))',
    );
    await db.raw('create table docs (id serial primary key, org_id int not null, number text not null, unique (org_id, number))');
    db.on('query', (q: { sql: string }) => statements.push(q.sql));
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  /** Takes the next number of the series and stores a document with it, in one transaction. */
  const create = (orgId: number, prefix: string, width?: number) =>
    db.transaction(async (trx) => {
      const number = await nextDocumentNumber(trx, orgId, prefix, docs, width);
      await trx('docs').insert({ org_id: orgId, number });
      return number;
    });

  it('starts at 1, zero-padded to the width, per organization and series, in one statement', async () => {
    statements.length = 0;
    expect(await create(1, 'INV-')).toBe('INV-00001');
    // One statement takes the number (besides BEGIN, the document's insert and COMMIT).
    expect(statements.filter((s) => s.includes('document_sequences'))).toHaveLength(1);
    expect(await create(1, 'INV-')).toBe('INV-00002');
    expect(await create(1, 'CRN-')).toBe('CRN-00001');
    expect(await create(2, 'INV-')).toBe('INV-00001');
  });

  it('skips a number a document already holds (typed by hand), and never reuses it', async () => {
    await db('docs').insert([
      { org_id: 3, number: 'Q-00002' },
      { org_id: 3, number: 'Q-00003' },
      // Another organization's number is not in the way.
      { org_id: 4, number: 'Q-00001' },
    ]);
    expect(await create(3, 'Q-')).toBe('Q-00001');
    expect(await create(3, 'Q-')).toBe('Q-00004');
    expect(await create(4, 'Q-')).toBe('Q-00002');
  });

  it('grows past the width instead of cutting digits off', async () => {
    await db('document_sequences').insert({ org_id: 5, series: 'INV-', last_value: 99_999 });
    expect(await create(5, 'INV-')).toBe('INV-100000');
    expect(await create(5, 'W-', 2)).toBe('W-01');
  });

  it('gives a rolled-back number back, and concurrent creates take every number once, with no gap', async () => {
    await expect(
      db.transaction(async (trx) => {
        expect(await nextDocumentNumber(trx, 6, 'INV-', docs)).toBe('INV-00001');
        throw new Error('changed its mind');
      }),
    ).rejects.toThrow('changed its mind');
    const numbers = await Promise.all(Array.from({ length: 24 }, () => create(6, 'INV-')));
    expect([...numbers].sort()).toEqual(Array.from({ length: 24 }, (_, i) => `INV-${String(i + 1).padStart(5, '0')}`));
  });
});
