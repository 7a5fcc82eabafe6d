import { randomUUID } from 'node:crypto';
import * as testing from '@bo/testkit';
import pg from 'pg';
import { LINES } from '../src/fixtures';
import { exactDocumentAmounts } from '../src/floor/format';
import { CREATE_INVOICE, SCHEMA, SEED, keyed, markPublished, recordedReply } from '../src/floor/sql';

/**
 * The floor with the bar's requirements (`--floor-required`) stands for the least a write must do
 * only if its statements do it: the key recorded with the reply in the write's own statement, a
 * repeated key leaving nothing, the outbox marked once confirmed.
 */
describe("the bench floor with the bar's requirements", () => {
  let database: testing.TestDatabase;
  let pool: pg.Pool;
  let partner: number;

  beforeAll(async () => {
    database = await testing.createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 1 });
    await pool.query(SCHEMA);
    const { rows } = await pool.query<{ id: number }>(SEED, [1, LINES.map((l) => Number(l.product_id)), 2]);
    partner = rows[0]!.id;
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  const create = (key: string, reply: string) => {
    const amounts = exactDocumentAmounts(LINES);
    const lines = LINES.map((l, i) => ({ ...l, product_name: 'P', ...amounts.lines[i] }));
    return pool.query<{ envelope: string }>(keyed(CREATE_INVOICE, 'invoicing', 9), [
      1,
      partner,
      'invoiceout',
      amounts.subtotal,
      amounts.tax,
      amounts.total,
      'u1',
      JSON.stringify(lines),
      randomUUID(),
      key,
      reply,
    ]);
  };
  const count = async (table: string) => Number((await pool.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]!.n);

  it('stores the invoice, its event and its key with the reply in one statement; a repeated key stores nothing', async () => {
    const key = randomUUID();
    const { rows } = await create(key, '{"message":"Invoice created successfully"}');
    expect(JSON.parse(rows[0]!.envelope)).toMatchObject({ type: 'invoicing.invoice.created', data: { invoicetotal: 444.85, lines: 3 } });
    expect((await pool.query('select org_id, reply from invoicing.operation_keys where key = $1', [key])).rows).toEqual([
      { org_id: 1, reply: '{"message":"Invoice created successfully"}' },
    ]);
    const before = { invoices: await count('invoicing.invoices'), outbox: await count('invoicing.outbox') };
    await expect(create(key, '{}')).rejects.toMatchObject({ code: '23505', constraint: 'operation_keys_pkey' });
    expect({ invoices: await count('invoicing.invoices'), outbox: await count('invoicing.outbox') }).toEqual(before);
    // The replay is answered the first reply, as recorded.
    expect((await pool.query(recordedReply('invoicing'), [1, key])).rows).toEqual([
      { reply: '{"message":"Invoice created successfully"}' },
    ]);
  });

  it('marks confirmed events published once', async () => {
    const { rows } = await pool.query<{ event_id: string }>('select event_id from invoicing.outbox where published_at is null');
    expect(rows.length).toBeGreaterThan(0);
    const marked = await pool.query(markPublished('invoicing'), [rows.map((r) => r.event_id)]);
    expect(marked.rowCount).toBe(rows.length);
    expect((await pool.query(markPublished('invoicing'), [rows.map((r) => r.event_id)])).rowCount).toBe(0);
  });
});
