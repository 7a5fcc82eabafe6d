import { createDb, type Knex } from '@bo/runtime';
import { newProducts } from '../support/catalog';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

const today = new Date().toISOString().slice(0, 10);
const later = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
const RPC_TIMEOUT_MS = 2000;

/**
 * Races between services, each forced into its worst interleaving by a lock the test holds (no
 * sleeps): the step that must wait is seen waiting in pg_locks before the test lets it go on.
 */
describe('races between services', () => {
  let sys: TestSystem;
  let db: Knex;
  let product: number;
  let partnerId: number;
  beforeAll(async () => {
    // Sales waits 60% of the RPC timeout for invoicing; the recovery task looks every 200 ms for
    // conversions left with no attempt for 3 × the timeout.
    sys = await startTestSystem({ env: { RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS), CONVERSION_RECOVERY_MS: '200' } });
    db = createDb(sys.databaseUrl, 'public', 3);
    [product] = (await newProducts(sys, ['Consulting'])) as [number];
    partnerId = (await sys.client.partners.partner.create({ org_id: '1', userid: 'u1', partnername: 'Raced', partner_type: 'customer' }))
      .partner.id;
  });
  afterAll(async () => {
    await db?.destroy();
    await sys?.stop();
  });

  /** The backends waiting for a lock on `table` (schema-qualified). */
  const waitingOn = async (table: string): Promise<number[]> =>
    (
      await db.raw<{ rows: Array<{ pid: number }> }>(`select pid from pg_locks where not granted and relation = ?::regclass`, [table])
    ).rows.map((r) => r.pid);
  /** Whether a backend is still inside a transaction (it may also have gone: its session ended). */
  const inTransaction = async (pid: number): Promise<boolean> =>
    (
      await db.raw<{ rows: unknown[] }>(
        `select 1 from pg_stat_activity where pid = ? and (state like 'idle in transaction%' or state = 'active')`,
        [pid],
      )
    ).rows.length > 0;
  const quotation = async (price: number) =>
    (
      await sys.client.sales.quotation.create({
        org_id: '1',
        userid: 'u1',
        partner: String(partnerId),
        quotation_type: 'quotation',
        quotation_status: 'draft',
        quotation_date: `${today}T10:00:00`,
        valid_until: later,
        line_items: [{ product_id: product, quantity: 1, price, tax_rate: 0, tax_included: false }],
      })
    ).quotation;
  const once = () => sys.clientOf(1, { retry: false });

  it('a conversion whose invoicing is slowed past 2 × the RPC timeout ends consistent: the late invoice is never made once the quotation was unfrozen', async () => {
    const q = await quotation(120);
    // Invoicing cannot write an invoice while the test holds this lock: the first attempt waits inside its transaction.
    const hold = await db.transaction();
    await hold.raw('lock table invoicing.invoices in share mode');
    const first = await refusal(
      once().sales.quotation.convert({ org_id: '1', userid: 'u1', quotation_id: q.id, invoicetype: 'invoiceout' }),
    );
    expect(first).toMatchObject({ status: 504, code: 'outcome_unknown' });
    let stuck: number[] = [];
    await eventually(async () => {
      stuck = await waitingOn('invoicing.invoices');
      expect(stuck).toHaveLength(1);
    });

    // The product goes: the recovery's attempt, 3 × the timeout later, is refused by invoicing (400
    // not_found, nothing made by it) and unfreezes the quotation while the first attempt still waits.
    await sys.client.catalog.product.delete({ org_id: '1', userid: 'u1', product_id: product, delete: true });
    await eventually(
      async () =>
        expect(await db('sales.quotations').where({ id: q.id }).first()).toMatchObject({ conversion_attempted_at: null, status: 'draft' }),
      { timeoutMs: 20 * RPC_TIMEOUT_MS },
    );
    // Only now is the first attempt let go, long past 2 × the timeout.
    expect(await waitingOn('invoicing.invoices')).toEqual(stuck);
    await hold.commit();
    await eventually(async () => expect(await inTransaction(stuck[0]!)).toBe(false));

    // No invoice behind the open quotation: the first attempt's deadline had passed, so it rolled back.
    expect(await db('invoicing.invoices').where({ org_id: 1, sourcetype: 'quotation', sourceid: String(q.id) })).toEqual([]);
    const now = (await sys.client.sales.quotation.get({ org_id: '1', quotation_id: q.id })).quotation;
    expect(now).toMatchObject({ quotation_status: 'draft', invoice_id: null, invoicenumber: null });
    // Unfrozen indeed: it takes an edit.
    await sys.client.sales.quotation.edit({ org_id: '1', userid: 'u1', quotation_id: q.id, comments: 'still open' });
  });
});
