import { createDb, type Knex } from '../src/db';
import { isTransientConflict } from '../src/db-errors';
import { numberDocument, pendingNumber, type NumberedTable } from '../src/sequences';
import { createTestDatabase, type TestDatabase } from '@bo/testkit';

/** A series' numbers as a documents table keeps them, and the one statement that numbers a document. */
describe('gapless document numbers (numberDocument)', () => {
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

  /** Inserts a document under a pending number, then numbers it, in one transaction. */
  const insertPending = async (trx: Knex.Transaction, orgId: number) =>
    (await trx('docs').insert({ org_id: orgId, number: pendingNumber() }).returning<Array<{ id: number }>>('id'))[0]!.id;
  const create = (orgId: number, prefix: string, width?: number) =>
    db.transaction(async (trx) => numberDocument(trx, orgId, prefix, { ...docs, id: await insertPending(trx, orgId) }, width));
  const numbersOf = async (orgId: number) => (await db('docs').where({ org_id: orgId }).orderBy('id').pluck('number')) as string[];

  it('starts at 1, zero-padded to the width, per organization and series, and writes the number into the document in one statement', async () => {
    statements.length = 0;
    expect(await create(1, 'INV-')).toBe('INV-00001');
    // The document is written first; one statement then takes the number and stores it.
    const taking = statements.filter((s) => s.includes('document_sequences'));
    expect(taking).toHaveLength(1);
    expect(statements.findIndex((s) => s.startsWith('insert into "docs"'))).toBeLessThan(statements.indexOf(taking[0]!));
    expect(await create(1, 'INV-')).toBe('INV-00002');
    expect(await create(1, 'CRN-')).toBe('CRN-00001');
    expect(await create(2, 'INV-')).toBe('INV-00001');
    expect(await numbersOf(1)).toEqual(['INV-00001', 'INV-00002', 'CRN-00001']);
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
    expect(await numbersOf(3)).toEqual(['Q-00002', 'Q-00003', 'Q-00001', 'Q-00004']);
  });

  it('grows past the width instead of cutting digits off', async () => {
    await db('document_sequences').insert({ org_id: 5, series: 'INV-', last_value: 99_999 });
    expect(await create(5, 'INV-')).toBe('INV-100000');
    expect(await create(5, 'W-', 2)).toBe('W-01');
  });

  it('gives a rolled-back number back, and concurrent creates take every number once, with no gap and no pending number left', async () => {
    await expect(
      db.transaction(async (trx) => {
        expect(await numberDocument(trx, 6, 'INV-', { ...docs, id: await insertPending(trx, 6) })).toBe('INV-00001');
        throw new Error('changed its mind');
      }),
    ).rejects.toThrow('changed its mind');
    const numbers = await Promise.all(Array.from({ length: 24 }, () => create(6, 'INV-')));
    const expected = Array.from({ length: 24 }, (_, i) => `INV-${String(i + 1).padStart(5, '0')}`);
    expect([...numbers].sort()).toEqual(expected);
    expect([...(await numbersOf(6))].sort()).toEqual(expected);
  });

  it('answers a number typed by hand into a concurrent document as a transient conflict, and the run after takes the next', async () => {
    const typed = await db.transaction();
    try {
      // Not committed yet: the numbering transaction cannot see it, and waits on the unique index.
      await typed('docs').insert({ org_id: 7, number: 'R-00001' });
      const racing = create(7, 'R-');
      await waitForLockWait();
      await typed.commit();
      const err = await racing.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isTransientConflict(err)).toBe(true);
    } finally {
      if (!typed.isCompleted()) await typed.rollback();
    }
    // The runtime runs the write again: the counter went back with the rollback, and R-00001 is taken.
    expect(await create(7, 'R-')).toBe('R-00002');
    expect(await numbersOf(7)).toEqual(['R-00001', 'R-00002']);
  });

  it('refuses to number a document that is not in the transaction', async () => {
    const [other] = await db('docs').insert({ org_id: 8, number: 'X-1' }).returning<Array<{ id: number }>>('id');
    await expect(db.transaction((trx) => numberDocument(trx, 9, 'X-', { ...docs, id: other!.id }))).rejects.toThrow(
      /not in this transaction/,
    );
    // Nothing was taken: the series starts at 1 for the next document.
    expect(await create(9, 'X-')).toBe('X-00001');
  });

  /** Until some backend of the test database waits on a lock (the numbering statement on the unique index). */
  async function waitForLockWait(): Promise<void> {
    for (let i = 0; i < 500; i++) {
      const { rows } = await db.raw<{ rows: unknown[] }>(
        "select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
      );
      if (rows.length) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('no statement waited on the unique index');
  }
});
