import { createDb, migrate, type Knex } from '../src/db';
import { paginationOf, selectRecordPage } from '../src/pagination';
import { recordJsonSql, recordMapper, type RecordFields } from '../src/record-fields';
import { RECORD_JSON_COLUMN, storedRecordMigration } from '../src/stored-record';
import { createTestDatabase, type TestDatabase } from '@bo/testkit';

interface Thing {
  id: number;
  org: number;
  name: string;
  note: string | null;
  amount: number;
  optional_amount: number | null;
  active: boolean;
  due: string | null;
  at: string;
  maybe_at: string | null;
}

const fields: RecordFields<Thing> = {
  id: ['id', 'value'],
  org: ['org_id', 'value'],
  name: ['name', 'value'],
  note: ['note', 'value'],
  amount: ['amount', 'number'],
  optional_amount: ['optional_amount', 'number'],
  active: ['active', 'value'],
  due: ['due', 'value'],
  at: ['created_at', 'datetime'],
  maybe_at: ['maybe_at', 'datetime'],
};

/** Values where PostgreSQL's JSON and JavaScript's could part: escapes, scales, signs, fractions of a second, zones. */
const ROWS: Array<[string, string | null, string, string | null, boolean, string | null, string, string | null]> = [
  ['plain', null, '0.00', null, true, null, '2026-11-23 04:31:37+00', null],
  [
    'quote " backslash \\ slash /',
    'tab\tnew\nline\rcr',
    '100.00',
    '0.10',
    false,
    '2026-02-28',
    '2026-11-23 04:31:37.999999+00',
    '1999-12-31 23:59:59.5+00',
  ],
  [
    'control \u0001\u001f del \u007f',
    'unicode Ünïcode ✓ 😀 \u2028',
    '-12.34',
    '1234567890123.45',
    true,
    '2024-02-29',
    '2026-03-29 01:30:00+02',
    '2026-06-30 12:00:00-09:30',
  ],
  ['empty note', '', '20.25', '-0.01', false, null, '1970-01-01 00:00:00+00', '2038-01-19 03:14:08+00'],
  ['large', 'x'.repeat(500), '999999999999.99', '0.50', true, '9999-12-31', '2026-11-23 23:59:59.000001+05:45', null],
];

describe('a record written by PostgreSQL (recordJsonSql) and by the mapper (recordMapper)', () => {
  let database: TestDatabase;
  let db: Knex;
  const toThing = recordMapper(fields);

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'public', 2);
    await db.raw(`create table things (
      id serial primary key, org_id int not null, name text not null, note text, amount numeric(18,2) not null,
      optional_amount numeric(18,2), active boolean not null, due date, created_at timestamptz not null, maybe_at timestamptz)`);
    for (const org of [1, 2]) {
      for (const [name, note, amount, optional, active, due, at, maybeAt] of ROWS) {
        await db('things').insert({
          org_id: org,
          name,
          note,
          amount,
          optional_amount: optional,
          active,
          due,
          created_at: at,
          maybe_at: maybeAt,
        });
      }
    }
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  it.each(['UTC', 'Asia/Kathmandu', 'America/St_Johns'])('agree to the byte for every row, in session time zone %s', async (zone) => {
    await db.transaction(async (trx) => {
      await trx.raw(`set local time zone '${zone}'`);
      const rows = (await trx('things').orderBy('id')) as object[];
      const { rows: written } = await trx.raw<{ rows: Array<{ json: string }> }>(
        `select ${recordJsonSql(fields, 't')} as json from things t order by id`,
      );
      expect(written).toHaveLength(rows.length);
      rows.forEach((row, i) => expect(written[i]?.json).toBe(JSON.stringify(toThing(row))));
    });
  });

  it('writes numbers as JSON numbers, times as UTC date-times, nulls as null', async () => {
    const [row] = (await db('things').where({ org_id: 1, name: ROWS[2]![0] })) as object[];
    expect(toThing(row!)).toMatchObject({
      amount: -12.34,
      optional_amount: 1234567890123.45,
      due: '2024-02-29',
      at: '2026-03-28T23:30:00',
    });
    const [empty] = (await db('things').where({ org_id: 1, name: 'plain' })) as object[];
    expect(toThing(empty!)).toMatchObject({ amount: 0, optional_amount: null, due: null, maybe_at: null });
  });

  it('past what a double holds exactly (no amount the API takes comes near), differ in digits but read as the same number', async () => {
    const { rows } = await db.raw<{ rows: Array<{ amount: string; json: string }> }>(
      `select r.amount::text as amount, ${recordJsonSql<{ amount: number }>({ amount: ['amount', 'number'] }, 'r')} as json
         from (select 9999999999999999.99::numeric(18,2) as amount) r`,
    );
    const written = JSON.parse(rows[0]!.json) as { amount: number };
    expect(rows[0]!.json).toBe('{"amount":9999999999999999.99}');
    expect(written.amount).toBe(toThing({ id: 1, amount: rows[0]!.amount }).amount);
  });

  describe('a page of them (selectRecordPage)', () => {
    const page = (orgId: number, req: { page_number?: number; page_size?: number }, extra = '', bindings: unknown[] = []) =>
      selectRecordPage(
        db,
        {
          table: 'things',
          where: `org_id = ?${extra}`,
          bindings: [orgId, ...(bindings as Knex.RawBinding[])],
          fields,
          orderBy: [{ field: 'id', order: 'desc' }],
        },
        req,
      );
    const mapped = async (orgId: number) => ((await db('things').where({ org_id: orgId }).orderBy('id', 'desc')) as object[]).map(toThing);

    it("is the mapped rows' JSON, newest first, with the filter's total", async () => {
      const all = await mapped(2);
      const first = await page(2, { page_size: 2 });
      expect(first.total).toBe(ROWS.length);
      expect(first.records.text).toBe(JSON.stringify(all.slice(0, 2)));
      const last = await page(2, { page_size: 2, page_number: 3 });
      expect(last.records.text).toBe(JSON.stringify(all.slice(4)));
      expect(paginationOf({ page_size: 2, page_number: 3 }, last.total)).toMatchObject({
        total_pages: 3,
        has_next: false,
        has_previous: true,
      });
    });

    it('keeps to the filter: one organization, and its extra conditions with their bindings', async () => {
      const mine = JSON.parse((await page(1, { page_size: 100 })).records.text) as Thing[];
      expect(mine.map((t) => t.org)).toEqual(Array(ROWS.length).fill(1));
      const active = await page(1, { page_size: 100 }, ' and active = ? and name <> ?', [true, 'plain']);
      expect(active.total).toBe(2);
      expect((JSON.parse(active.records.text) as Thing[]).map((t) => t.name)).toEqual([ROWS[4]![0], ROWS[2]![0]]);
    });

    it('is [] past the end and for no match, with the total still counted', async () => {
      const past = await page(1, { page_size: 10, page_number: 2 });
      expect(past).toMatchObject({ total: ROWS.length });
      expect(past.records.text).toBe('[]');
      const none = await page(3, { page_size: 10 });
      expect(none.total).toBe(0);
      expect(none.records.text).toBe('[]');
    });
  });

  describe('kept with each row (storedRecordMigration)', () => {
    const stored = storedRecordMigration('things', fields);
    const storedRecords = async (trx: Knex | Knex.Transaction = db) =>
      ((await trx('things').orderBy('id')) as Array<Record<string, unknown>>).map((row) => [
        row[RECORD_JSON_COLUMN],
        JSON.stringify(toThing(row)),
      ]);

    beforeAll(async () => {
      expect(await migrate(db, 'public', [stored])).toEqual([stored.name]);
    });

    it.each(['UTC', 'Asia/Kathmandu', 'America/St_Johns'])(
      "is the mapper's JSON to the byte for every row, read in session time zone %s",
      async (zone) => {
        await db.transaction(async (trx) => {
          await trx.raw(`set local time zone '${zone}'`);
          for (const [kept, mapped] of await storedRecords(trx)) expect(kept).toBe(mapped);
        });
      },
    );

    it('follows every write, whatever time zone the writer has', async () => {
      await db.transaction(async (trx) => {
        await trx.raw(`set local time zone 'America/St_Johns'`);
        await trx('things').insert({
          org_id: 3,
          name: 'new',
          note: 'é "q"',
          amount: '7.10',
          active: true,
          created_at: '2026-11-23 01:02:03.4+03:30',
        });
        await trx('things')
          .where({ org_id: 1, name: 'plain' })
          .update({ note: 'edited', amount: '-0.50', maybe_at: '2026-01-01 00:00:00+14' });
      });
      const keptOf = async (where: object): Promise<unknown> => {
        const row: unknown = await db('things').where(where).first(RECORD_JSON_COLUMN);
        return JSON.parse((row as Record<string, string>)[RECORD_JSON_COLUMN]!);
      };
      expect(await keptOf({ org_id: 3 })).toMatchObject({ note: 'é "q"', amount: 7.1, at: '2026-11-22T21:32:03' });
      expect(await keptOf({ org_id: 1, name: 'plain' })).toMatchObject({ note: 'edited', amount: -0.5, maybe_at: '2025-12-31T10:00:00' });
      // A statement cannot write the column itself: the trigger writes it after the statement's values.
      await db('things')
        .where({ org_id: 3 })
        .update({ [RECORD_JSON_COLUMN]: 'forged' });
      await db('things').insert({
        org_id: 3,
        name: 'forger',
        amount: '1',
        active: false,
        created_at: '2026-11-23',
        [RECORD_JSON_COLUMN]: 'x',
      });
      for (const [keptRecord, mapped] of await storedRecords()) expect(keptRecord).toBe(mapped);
    });

    it('is what a page reads when the query says so, the same text it writes otherwise', async () => {
      const query = {
        table: 'things',
        where: 'org_id = ?',
        bindings: [2],
        fields,
        orderBy: [{ field: 'id' as const, order: 'desc' as const }],
      };
      const written = await selectRecordPage(db, query, { page_size: 3, page_number: 2 });
      const read = await selectRecordPage(db, { ...query, stored: true }, { page_size: 3, page_number: 2 });
      expect(read).toEqual(written);
      expect(read.records.text).not.toBe('[]');
    });

    it('is rebuilt once when the fields change, and left alone while they do not', async () => {
      expect(await migrate(db, 'public', [stored])).toEqual([]);
      const { note: _dropped, ...rest } = fields;
      const fewer: RecordFields<Omit<Thing, 'note'>> = rest;
      const changed = storedRecordMigration('things', fewer);
      expect(changed.name).not.toBe(stored.name);
      expect(storedRecordMigration('other_things', fields).name).not.toBe(stored.name);
      expect(await migrate(db, 'public', [stored, changed])).toEqual([changed.name]);
      const toFewer = recordMapper(fewer);
      for (const row of (await db('things').orderBy('id')) as Array<Record<string, unknown>>) {
        expect(row[RECORD_JSON_COLUMN]).toBe(JSON.stringify(toFewer(row)));
      }
      expect(await migrate(db, 'public', [stored, changed])).toEqual([]);
    });
  });
});
