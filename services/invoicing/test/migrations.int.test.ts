import { migrate, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { invoicingMigrations } from '../src/migrations';

/** Data migrations over rows as earlier versions of the service left them, on real PostgreSQL. */
describe('invoicing migrations over data of earlier versions', () => {
  const schema = 'invoicing';
  let migrated: testing.MigratedDatabase;
  let db: Knex;

  beforeAll(async () => {
    // The schema as it was before the migrations under test.
    migrated = await testing.migratedDatabase(schema, testing.migrationsUpTo(invoicingMigrations, '006_recurring_first_period'));
    db = migrated.db;
  });
  afterAll(() => migrated?.drop());

  let seq = 0;
  const invoice = async (values: Record<string, unknown>): Promise<number> => {
    seq += 1;
    const [row] = await db('invoices')
      .insert({
        org_id: 1,
        invoicenumber: `OLD-${seq}`,
        invoicetype: 'invoiceout',
        partner_id: 10,
        invoicestatus: 'draft',
        invoicedatetime: '2026-01-31T08:00:00Z',
        ...values,
      })
      .returning<Array<{ id: number }>>('id');
    return row!.id;
  };
  /** A contract as the service made it before the parent billed the first period: its first child due on start_date. */
  const oldContract = (frequency: string, start: string, extra: Record<string, unknown> = {}) =>
    invoice({
      recurring_enabled: true,
      recurring_frequency: frequency,
      recurring_start_date: start,
      recurring_next_run_date: start,
      recurring_next_index: 0,
      recurring_status: 'active',
      ...extra,
    });
  const contract = async (id: number) =>
    db('invoices')
      .where({ id })
      .first<{ recurring_next_index: number; next: string | null; recurring_status: string }>(
        'recurring_next_index',
        db.raw('recurring_next_run_date::text as next'),
        'recurring_status',
      );

  it('moves old contracts that billed nothing yet to the period after the parent, month ends clamped as the code does; lines made before the catalog check move no stock', async () => {
    const monthlyEnd = await oldContract('monthly', '2026-01-31');
    const leapYearly = await oldContract('yearly', '2028-02-29');
    const weekly = await oldContract('weekly', '2026-12-29');
    const quarterly = await oldContract('quarterly', '2026-11-30', { recurring_status: 'paused' });
    // Left alone: one that made a child already, a cancelled one, an ordinary invoice.
    const started = await oldContract('monthly', '2026-01-15', {
      recurring_next_index: 2,
      recurring_generated: 1,
      recurring_next_run_date: '2026-03-15',
    });
    const cancelled = await oldContract('monthly', '2026-01-15', { recurring_status: 'cancelled', recurring_next_run_date: null });
    const plain = await invoice({});

    const lineOf = (invoiceId: number, over: Record<string, unknown>) => ({
      org_id: 1,
      invoice_id: invoiceId,
      quantity: '1',
      price: '10',
      tax_rate: '0',
      tax_included: false,
      subtotal: '10',
      tax_amount: '0',
      total: '10',
      ...over,
    });
    const [unchecked, snapshotted] = await db('invoice_lines')
      .insert([lineOf(plain, { product_id: 'widget-from-before' }), lineOf(plain, { product_id: '7', sku: 'W-7', uom: 'pcs' })])
      .returning<Array<{ id: number }>>('id');

    await migrate(db, schema, invoicingMigrations);

    expect(await contract(monthlyEnd)).toEqual({ recurring_next_index: 1, next: '2026-02-28', recurring_status: 'active' });
    expect(await contract(leapYearly)).toEqual({ recurring_next_index: 1, next: '2029-02-28', recurring_status: 'active' });
    expect(await contract(weekly)).toEqual({ recurring_next_index: 1, next: '2027-01-05', recurring_status: 'active' });
    expect(await contract(quarterly)).toEqual({ recurring_next_index: 1, next: '2027-02-28', recurring_status: 'paused' });
    expect(await contract(started)).toEqual({ recurring_next_index: 2, next: '2026-03-15', recurring_status: 'active' });
    expect(await contract(cancelled)).toEqual({ recurring_next_index: 0, next: null, recurring_status: 'cancelled' });
    expect(await contract(plain)).toEqual({ recurring_next_index: 0, next: null, recurring_status: null });

    const checked = async (id: number) =>
      (await db('invoice_lines').where({ id }).first<{ catalog_checked: boolean }>('catalog_checked'))?.catalog_checked;
    expect(await checked(unchecked!.id)).toBe(false);
    expect(await checked(snapshotted!.id)).toBe(true);
    // Every line made from now on was checked against the catalog first (and states its VAT category, as 013 requires).
    const [fresh] = await db('invoice_lines')
      .insert(lineOf(plain, { product_id: '8', tax_category: 'Z' }))
      .returning<Array<{ id: number }>>('id');
    expect(await checked(fresh!.id)).toBe(true);
  });
});

/** 009: links from before links were the server's are reported, and kept only where invoicing can check them. */
describe('invoicing migration 009 over source links typed by clients', () => {
  const schema = 'invoicing';
  let migrated: testing.MigratedDatabase;
  let db: Knex;

  beforeAll(async () => {
    migrated = await testing.migratedDatabase(
      schema,
      testing.migrationsUpTo(invoicingMigrations, '009_server_made_links_and_partial_credits'),
    );
    db = migrated.db;
  });
  afterAll(() => migrated?.drop());

  let seq = 0;
  const invoice = async (values: Record<string, unknown>): Promise<number> => {
    seq += 1;
    const [row] = await db('invoices')
      .insert({
        org_id: 1,
        invoicenumber: `OLD-${seq}`,
        invoicetype: 'invoiceout',
        partner_id: 10,
        invoicestatus: 'open',
        invoicedatetime: '2026-01-31T08:00:00Z',
        invoicetotal: '100.00',
        ...values,
      })
      .returning<Array<{ id: number }>>('id');
    return row!.id;
  };

  it('keeps no quotation source as a conversion and lists each; keeps a credit note’s link only where it holds, listing the others', async () => {
    const quoted = await invoice({ invoicestatus: 'draft', sourcetype: 'quotation', sourceid: '17', sourcenumber: 'QUO-00017' });
    const quotedOddCase = await invoice({ invoicestatus: 'draft', sourcetype: 'Quotation', sourceid: '18' });
    const sale = await invoice({});
    const draftSale = await invoice({ invoicestatus: 'draft' });
    const otherOrgSale = await invoice({ org_id: 2 });
    const bill = await invoice({ invoicetype: 'invoicein' });
    const good = await invoice({ invoicetype: 'creditout', invoicestatus: 'draft', sourcetype: 'invoice', sourceid: String(sale) });
    const goodCase = await invoice({ invoicetype: 'creditout', invoicestatus: 'open', sourcetype: 'INVOICE', sourceid: String(sale) });
    const ofDraft = await invoice({ invoicetype: 'creditout', sourcetype: 'invoice', sourceid: String(draftSale) });
    const ofOtherOrg = await invoice({ invoicetype: 'creditout', sourcetype: 'invoice', sourceid: String(otherOrgSale) });
    const ofOtherPartner = await invoice({ invoicetype: 'creditout', partner_id: 11, sourcetype: 'Invoice', sourceid: String(sale) });
    const unpaired = await invoice({ invoicetype: 'creditout', sourcetype: 'invoice', sourceid: String(bill) });
    const notAnId = await invoice({ invoicetype: 'creditout', sourcetype: 'invoice', sourceid: 'INV-7' });
    const freeText = await invoice({ sourcetype: 'order', sourceid: 'PO-1' });

    await migrate(db, schema, invoicingMigrations);

    const links = await db('invoices').orderBy('id').select('id', 'converted_from_quotation_id', 'credits_invoice_id');
    const linkOf = new Map(links.map((r) => [r.id, [r.converted_from_quotation_id, r.credits_invoice_id]]));
    expect(linkOf.get(quoted)).toEqual([null, null]);
    expect(linkOf.get(good)).toEqual([null, sale]);
    expect(linkOf.get(goodCase)).toEqual([null, sale]);
    for (const id of [quotedOddCase, ofDraft, ofOtherOrg, ofOtherPartner, unpaired, notAnId, freeText])
      expect(linkOf.get(id)).toEqual([null, null]);

    const review = await db('source_link_review').orderBy('invoice_id').select('invoice_id', 'sourcetype', 'sourceid', 'reason');
    expect(review.map((r) => r.invoice_id)).toEqual([quoted, quotedOddCase, ofDraft, ofOtherOrg, ofOtherPartner, unpaired, notAnId]);
    expect(review[0]).toMatchObject({
      sourcetype: 'quotation',
      sourceid: '17',
      reason: expect.stringContaining('not kept as a conversion'),
    });
    expect(review[2]!.reason).toContain('not kept as the credited invoice');
    // The client's text is kept as it was typed.
    expect(await db('invoices').where({ id: quoted }).first('sourcetype', 'sourceid', 'sourcenumber')).toEqual({
      sourcetype: 'quotation',
      sourceid: '17',
      sourcenumber: 'QUO-00017',
    });
    // Free text is no key any more: a second invoice may name the same source.
    await invoice({ sourcetype: 'quotation', sourceid: '17' });
  });
});
