import { createDb, type Knex } from '@bo/runtime';
import { newProducts } from '../support/catalog';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

const today = new Date().toISOString().slice(0, 10);
const later = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
/** Long enough that a delete's fence request outlives a loaded machine's queueing (it expires with its caller's timeout). */
const RPC_TIMEOUT_MS = 5000;
/** The statements each race holds up, as pg_stat_activity shows them. */
const PARTNER_DELETE = 'update ("?\\w+"?\\.)?"?partners"? set .*deleted_at';
const INVOICE_INSERT = 'insert into ("?\\w+"?\\.)?"?invoices"?[\\s(]';
const SERIES_ADVANCE = 'insert into ("?\\w+"?\\.)?"?document_sequences"?[\\s(]';

/**
 * Races between services, each forced into its worst interleaving by a lock the test holds (no
 * sleeps): the step that must wait is seen waiting in pg_locks before the test lets it go on.
 */
describe('races between services', () => {
  let sys: TestSystem;
  let db: Knex;
  let product: number;
  let kept: number;
  let partnerId: number;
  beforeAll(async () => {
    // Sales waits 60% of the RPC timeout for invoicing; the recovery task looks every 200 ms for
    // conversions left with no attempt for 3 × the timeout.
    sys = await startTestSystem({ env: { RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS), CONVERSION_RECOVERY_MS: '200' } });
    db = createDb(sys.databaseUrl, 'public', 3);
    [product, kept] = (await newProducts(sys, ['Consulting', 'Support'])) as [number, number];
    partnerId = (await sys.client.partners.partner.create({ org_id: '1', userid: 'u1', partnername: 'Raced', partner_type: 'customer' }))
      .partner.id;
  });
  /** Locks the test holds; a failing test lets go of its own so the others (and the teardown) are not stuck behind it. */
  const holds: Knex.Transaction[] = [];
  const hold = async (statement: string): Promise<Knex.Transaction> => {
    const trx = await db.transaction();
    holds.push(trx);
    await trx.raw(statement);
    return trx;
  };
  afterEach(async () => {
    for (const trx of holds.splice(0)) if (!trx.isCompleted()) await trx.rollback();
  });
  afterAll(async () => {
    await db?.destroy();
    await sys?.stop();
  });

  /**
   * The backends waiting for a lock on `table` (schema-qualified) while running a statement that
   * matches `statement` (a regular expression): the step under test, not a background writer (an
   * outbox relay's poll, a consumer's store) that meets the same table lock.
   */
  const waitingOn = async (table: string, statement: string): Promise<number[]> =>
    (
      await db.raw<{ rows: Array<{ pid: number }> }>(
        `select l.pid from pg_locks l join pg_stat_activity a on a.pid = l.pid
          where not l.granted and l.relation = ?::regclass and a.query ~* ?`,
        [table, statement],
      )
    ).rows.map((r) => r.pid);
  /** The backends waiting for a row lock (another transaction's) while running a statement that matches `statement`. */
  const waitingForRow = async (statement: string): Promise<number[]> =>
    (
      await db.raw<{ rows: Array<{ pid: number }> }>(
        `select pid from pg_stat_activity where wait_event_type = 'Lock' and wait_event = 'transactionid' and query ~* ?`,
        [statement],
      )
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
  const newPartner = async (partnername: string) =>
    (await sys.client.partners.partner.create({ org_id: '1', userid: 'u1', partnername, partner_type: 'customer' })).partner.id;
  const invoiceFor = (partner: number) =>
    once().invoicing.invoice.create({
      org_id: '1',
      userid: 'u1',
      invoicetype: 'invoiceout',
      partner,
      line_items: [{ product_id: kept, quantity: 1, price: 10, tax_rate: 0, tax_included: false }],
    });
  const quotationFor = (partner: number) =>
    once().sales.quotation.create({
      org_id: '1',
      userid: 'u1',
      partner: String(partner),
      quotation_type: 'quotation',
      quotation_status: 'draft',
      quotation_date: `${today}T10:00:00`,
      valid_until: later,
      line_items: [{ product_id: kept, quantity: 1, price: 10, tax_rate: 0, tax_included: false }],
    });
  const documentsOf = async (partner: number) => ({
    invoices: await db('invoicing.invoices').where({ org_id: 1, partner_id: partner }).pluck('invoicenumber'),
    quotations: await db('sales.quotations').where({ org_id: 1, partner_id: partner }).pluck('quotation_number'),
  });
  const deletedAt = async (partner: number) => (await db('partners.partners').where({ id: partner }).first()).deleted_at as Date | null;
  /** Backends waiting for invoicing's fence lock on this partner (its advisory lock, by key: other advisory waiters do not count). */
  const waitingOnFence = async (partner: number) =>
    (
      await db.raw<{ rows: unknown[] }>(
        `select pid from pg_locks
          where locktype = 'advisory' and not granted and objsubid = 1
            and ((classid::int8 << 32) | objid::int8) = hashtextextended('partner_delete_fence:invoicing:1:' || ?::int, 0)`,
        [partner],
      )
    ).rows.length;

  it('a create that passed its checks before a delete asked is counted: the delete is refused and the document stays', async () => {
    const partner = await newPartner('Created First');
    // The invoice waits to be written, past its partner checks: its one statement checks the fence
    // (taking its lock, shared, to the statement's end), then waits for the series' counter, which
    // the test holds.
    await db.raw(`insert into invoicing.document_sequences (org_id, series, last_value) values (1, 'INV-', 0) on conflict do nothing`);
    const held = await hold(`select 1 from invoicing.document_sequences where org_id = 1 and series = 'INV-' for update`);
    const creating = invoiceFor(partner).then(
      (r) => r,
      (err: unknown) => err,
    );
    await eventually(async () => expect(await waitingForRow(SERIES_ADVANCE)).toHaveLength(1));
    // The delete asks invoicing, which must wait for that create before it can answer.
    const deleting = refusal(once().partners.partner.delete({ org_id: '1', userid: 'u1', partner_id: partner }));
    await eventually(async () => expect(await waitingOnFence(partner)).toBe(1));
    await held.commit();

    const created = await creating;
    const [number] = (await documentsOf(partner)).invoices;
    expect(number).toMatch(/^INV-\d{5}$/);
    expect(created).toMatchObject({ invoice: { invoicenumber: number, invoicestatus: 'draft' } });
    expect(await deleting).toMatchObject({
      status: 400,
      code: 'validation_failed',
      message: `Partner ${partner} cannot be deleted: it has 1 open document: ${number} (draft)`,
    });
    expect(await deletedAt(partner)).toBeNull();
    expect(await documentsOf(partner)).toEqual({ invoices: [number], quotations: [] });
  });

  it('a create arriving while a delete commits is refused (503, retryable), writes nothing, and finds the partner gone afterwards', async () => {
    const partner = await newPartner('Deleted First');
    // The delete has asked both services (each fenced the partner) and waits to write its row.
    const held = await hold('lock table partners.partners in share mode');
    const deleting = once().partners.partner.delete({ org_id: '1', userid: 'u1', partner_id: partner });
    await eventually(async () => expect(await waitingOn('partners.partners', PARTNER_DELETE)).toHaveLength(1));

    for (const create of [invoiceFor(partner), quotationFor(partner)]) {
      expect(await refusal(create)).toMatchObject({
        status: 503,
        code: 'service_unavailable',
        message: expect.stringContaining(`Partner ${partner} is being deleted; nothing was written`),
      });
    }
    expect(await documentsOf(partner)).toEqual({ invoices: [], quotations: [] });
    await held.commit();
    expect(await deleting).toEqual({ message: 'Partner deleted successfully' });
    expect(await deletedAt(partner)).not.toBeNull();

    // Once the deletion reached them, sales and invoicing answer not_found; nothing was ever written.
    await eventually(async () => expect(await refusal(invoiceFor(partner))).toMatchObject({ status: 400, code: 'not_found' }));
    await eventually(async () => expect(await refusal(quotationFor(partner))).toMatchObject({ status: 400, code: 'not_found' }));
    expect(await documentsOf(partner)).toEqual({ invoices: [], quotations: [] });
  });

  it(
    'a conversion whose invoicing is slowed past 2 × the RPC timeout ends consistent: the late invoice is never made once the quotation was unfrozen',
    async () => {
      const q = await quotation(120);
      // Invoicing cannot write an invoice while the test holds this lock: the first attempt waits inside its transaction.
      const held = await hold('lock table invoicing.invoices in share mode');
      const first = await refusal(
        once().sales.quotation.convert({ org_id: '1', userid: 'u1', quotation_id: q.id, invoicetype: 'invoiceout' }),
      );
      expect(first).toMatchObject({ status: 504, code: 'outcome_unknown' });
      let stuck: number[] = [];
      await eventually(async () => {
        stuck = await waitingOn('invoicing.invoices', INVOICE_INSERT);
        expect(stuck).toHaveLength(1);
      });

      // The product goes: the recovery's attempt, 3 × the timeout later, is refused by invoicing (400
      // not_found, nothing made by it) and unfreezes the quotation while the first attempt still waits.
      await sys.client.catalog.product.delete({ org_id: '1', userid: 'u1', product_id: product, delete: true });
      await eventually(
        async () =>
          expect(await db('sales.quotations').where({ id: q.id }).first()).toMatchObject({
            conversion_attempted_at: null,
            status: 'draft',
          }),
        { timeoutMs: 20 * RPC_TIMEOUT_MS },
      );
      // Only now is the first attempt let go, long past 2 × the timeout.
      expect(await waitingOn('invoicing.invoices', INVOICE_INSERT)).toEqual(stuck);
      await held.commit();
      await eventually(async () => expect(await inTransaction(stuck[0]!)).toBe(false));

      // No invoice behind the open quotation: the first attempt's deadline had passed, so it rolled back.
      expect(await db('invoicing.invoices').where({ org_id: 1, sourcetype: 'quotation', sourceid: String(q.id) })).toEqual([]);
      const now = (await sys.client.sales.quotation.get({ org_id: '1', quotation_id: q.id })).quotation;
      expect(now).toMatchObject({ quotation_status: 'draft', invoice_id: null, invoicenumber: null });
      // Unfrozen indeed: it takes an edit.
      await sys.client.sales.quotation.edit({ org_id: '1', userid: 'u1', quotation_id: q.id, comments: 'still open' });
    },
    30 * RPC_TIMEOUT_MS,
  );
});
