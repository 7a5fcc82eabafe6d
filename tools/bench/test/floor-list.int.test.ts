import * as testing from '@bo/testkit';
import { toPartnerRecord, type PartnerRow } from '@bo/partners';
import pg from 'pg';
import { LIST_PARTNERS, SCHEMA } from '../src/floor/sql';

/**
 * The bench's floor answers list partners with the records the partners service answers, to the
 * byte: it stands for the service's minimum work only if it does the same work.
 */
describe("the bench floor's list of partners", () => {
  let database: testing.TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await testing.createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 1 });
    await pool.query(SCHEMA);
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  it('writes the JSON the partners service writes for the same rows, newest first, with the live total', async () => {
    await pool.query(`insert into partners.partners (org_id, partnername, display_name, partner_type, email, notes, credit_limit, balance, currency, created_at)
      values (1, 'Zork "quoted" \\ back', 'Zork', 'customer', 'z@zork.test', E'line\\nbreak', 20.25, -12.5, 'EUR', '2026-11-23 04:31:37.999+02'),
             (1, 'Ünïcode ✓', 'Ünïcode ✓', 'both', null, null, 999999999999.99, 0, null, now()),
             (1, 'Gone', 'Gone', 'vendor', null, null, 0, 0, null, now()),
             (2, 'Other org', 'Other org', 'customer', null, null, 0, 0, null, now())`);
    await pool.query(`update partners.partners set deleted_at = now() where partnername = 'Gone'`);
    const { rows } = await pool.query<{ total: string; records: string }>(LIST_PARTNERS, [1, 25]);
    const { rows: live } = await pool.query<PartnerRow>(
      `select * from partners.partners where org_id = 1 and deleted_at is null order by id desc`,
    );
    expect(Number(rows[0]!.total)).toBe(2);
    expect(rows[0]!.records).toBe(JSON.stringify(live.map(toPartnerRecord)));
  });
});
