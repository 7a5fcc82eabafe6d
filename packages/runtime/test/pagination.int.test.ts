import { createDb, type Knex } from '../src/db';
import { selectPage } from '../src/pagination';
import { createTestDatabase, type TestDatabase } from '@bo/testkit';

interface ItemRow {
  id: number;
  name: string;
  kind_name: string | null;
  weight: string;
}

/** The list handlers' shape: a filtered join, a computed column with its own binding, a total ordered by the id last. */
describe('a page of a filtered query and its total (selectPage)', () => {
  let database: TestDatabase;
  let db: Knex;
  const statements: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'public', 2);
    await db.raw('create table kinds (org_id int not null, id int not null, name text not null, primary key (org_id, id))');
    await db.raw(
      'create table items (id serial primary key, org_id int not null, kind_id int, name text not null, weight numeric(8,2) not null)',
    );
    await db('kinds').insert([
      { org_id: 1, id: 1, name: 'tool' },
      { org_id: 2, id: 1, name: 'another organization’s tool' },
    ]);
    // Organization 1 has seven items, four of them tools; organization 2 has three.
    for (let i = 1; i <= 7; i++)
      await db('items').insert({ org_id: 1, kind_id: i % 2 === 1 ? 1 : null, name: `item ${i}`, weight: `${i}.50` });
    for (let i = 1; i <= 3; i++) await db('items').insert({ org_id: 2, kind_id: 1, name: `theirs ${i}`, weight: '1.00' });
    db.on('query', (q: { sql: string }) => statements.push(q.sql));
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });
  beforeEach(() => {
    statements.length = 0;
  });

  const items = (orgId: number, kindName?: string) =>
    db('items as i')
      .leftJoin('kinds as k', (j) => j.on('k.org_id', 'i.org_id').andOn('k.id', 'i.kind_id'))
      .where('i.org_id', orgId)
      .modify((q: Knex.QueryBuilder) => {
        if (kindName) q.where('k.name', kindName);
      })
      .select('i.id', 'i.name', 'k.name as kind_name', db.raw('i.weight * ? as weight', [2]));
  const newestFirst = (page: Knex.QueryBuilder) => page.orderBy('i.id', 'desc');

  it('is the page of rows in order, with the total of the whole filter, in one statement', async () => {
    const { rows, total } = await selectPage<ItemRow>(items(1), { page_size: 3, page_number: 2 }, newestFirst);
    expect(total).toBe(7);
    expect(rows.map((r) => r.name)).toEqual(['item 4', 'item 3', 'item 2']);
    // The computed column kept its own binding beside the count's and the filter's.
    expect(rows.map((r) => r.weight)).toEqual(['9.00', '7.00', '5.00']);
    expect(rows.map((r) => r.kind_name)).toEqual([null, 'tool', null]);
    expect(statements).toHaveLength(1);
  });

  it('counts only what the filter keeps, joins included, and never another organization', async () => {
    const tools = await selectPage<ItemRow>(items(1, 'tool'), { page_size: 2 }, newestFirst);
    expect(tools.total).toBe(4);
    expect(tools.rows.map((r) => r.name)).toEqual(['item 7', 'item 5']);
    const theirs = await selectPage<ItemRow>(items(2), { page_size: 10 }, newestFirst);
    expect(theirs.total).toBe(3);
    expect(theirs.rows.every((r) => r.name.startsWith('theirs'))).toBe(true);
  });

  it('answers a page past the end with no rows and the total still counted', async () => {
    const past = await selectPage<ItemRow>(items(1), { page_size: 5, page_number: 3 }, newestFirst);
    expect(past).toEqual({ rows: [], total: 7 });
    const none = await selectPage<ItemRow>(items(3), { page_size: 5 }, newestFirst);
    expect(none).toEqual({ rows: [], total: 0 });
  });
});
