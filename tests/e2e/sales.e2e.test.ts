import { randomUUID } from 'node:crypto';
import type { Client, OperationNamed, RequestBody } from '@bo/client';
import pg from 'pg';
import { newProducts } from '../support/catalog';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

const today = new Date().toISOString().slice(0, 10);
const later = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
// Lines name catalog products: beforeAll creates them and puts their ids here.
let gadgetId = 0;
const specLine = {
  product_id: 0,
  product_name: 'Widget',
  description: 'Blue',
  quantity: 5,
  price: 50,
  discount: 10,
  tax_rate: 15,
  tax_included: false,
  subtotal: 225,
  tax_amount: 33.75,
  total: 258.75,
};

type QuotationRequest = RequestBody<OperationNamed<'sales.quotation.create'>>;
type QuotationFields = Partial<QuotationRequest>;

/** Sales through the gateway with the typed client; raw HTTP for bodies the types forbid and for the paths and path quirks of the spec the client does not use. */
describe('sales through the gateway', () => {
  let sys: TestSystem;
  let org2: Client;
  let partnerId: number;
  beforeAll(async () => {
    sys = await startTestSystem();
    org2 = sys.clientOf(2);
    const created = await sys.client.partners.partner.create({
      org_id: '1',
      userid: 'u1',
      partnername: 'Acme Corporation',
      display_name: 'Acme',
      partner_type: 'customer',
      currency: 'USD',
      credit_limit: 100000,
    });
    partnerId = created.partner.id;
    [specLine.product_id, gadgetId] = (await newProducts(sys, ['Widget', 'Gadget'])) as [number, number];
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const clientOf = (org: 1 | 2) => (org === 1 ? sys.client : org2);
  const sales = () => sys.client.sales.quotation;
  const createBody = (fields: QuotationFields = {}, org: 1 | 2 = 1): QuotationRequest => ({
    org_id: String(org),
    userid: 'u1',
    partner: String(partnerId),
    quotation_type: 'quotation',
    quotation_status: 'draft',
    quotation_date: `${today}T10:00:00`,
    valid_until: later,
    line_items: [specLine],
    ...fields,
  });
  const create = (fields: QuotationFields = {}, org: 1 | 2 = 1) => clientOf(org).sales.quotation.create(createBody(fields, org));
  const createQuotation = async (fields: QuotationFields = {}) => (await create(fields)).quotation;
  const convert = (quotationId: number, client: Client = sys.client, idempotencyKey?: string) =>
    client.sales.quotation.convert({ org_id: '1', userid: 'u1', quotation_id: quotationId, invoicetype: 'invoiceout' }, { idempotencyKey });
  const balance = async () => (await sys.client.partners.partner.balance({ org_id: '1', partner_id: partnerId })).partner;
  const quotationRow = async (id: number) => (await sales().list({ org_id: '1', page_size: 100 })).quotations.find((q) => q.id === id);
  const count = async () => (await sales().list({ org_id: '1' })).pagination.total_items;

  it("creates the spec's worked example, numbered QUO-00001, with a partner not seen by events yet", async () => {
    const r = await create({ comments: 'First', quotation_reference: 'PO-1' });
    expect(r.message).toEqual(expect.any(String));
    expect(r.quotation).toMatchObject({
      orgid: 1,
      partner: String(partnerId),
      quotation_number: 'QUO-00001',
      quotation_type: 'quotation',
      quotation_status: 'draft',
      quotation_date: `${today}T10:00:00`,
      valid_until: later,
      comments: 'First',
      quotation_reference: 'PO-1',
      subtotal: 225,
      tax_amount: 33.75,
      quotation_total: 258.75,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
    });
    expect(r.quotation.line_items[0]).toMatchObject({ subtotal: 225, tax_amount: 33.75, total: 258.75 });
  });

  it('adds lines, edits, totals and lists on the spec paths and on any /sales path', async () => {
    const q = await createQuotation({ line_items: [] });
    const added = await sales().addLine({
      org_id: '1',
      userid: 'u1',
      quotation_id: q.id,
      product_id: String(gadgetId),
      product_name: 'Gadget',
      quantity: 2,
      price: 115,
      tax_rate: 15,
      tax_included: true,
    });
    expect(added.line_item).toEqual({
      id: expect.any(Number),
      tax_category: 'S',
      tax_exemption_reason: null,
      tax_exemption_code: null,
      reverse_charge_rate: null,
      quotation_id: q.id,
      product_id: String(gadgetId),
      variant_id: null,
      location_id: null,
      product_name: 'Gadget',
      sku: null,
      uom: null,
      description: null,
      quantity: 2,
      price: 115,
      discount: 0,
      tax_rate: 15,
      tax_included: true,
      subtotal: 200,
      tax_amount: 30,
      total: 230,
    });
    await sales().addLine({ org_id: '1', quotation_id: q.id, ...specLine });
    const total = await sales().total({ org_id: '1', quotation_id: q.id });
    expect(total).toEqual({
      message: expect.any(String),
      quotation_id: q.id,
      subtotal: 425,
      tax_amount: 63.75,
      discount_total: 25,
      quotation_total: 488.75,
      currency: 'USD',
      vat_total: 63.75,
      rounding_amount: 0,
      tax_breakdown: [
        { tax_category: 'S', tax_rate: 15, taxable_amount: 425, tax_amount: 63.75, exemption_reason: null, exemption_code: null },
      ],
    });
    // The paths below are the point: the total on the create path, the edit and the list on the spec's trailing-slash list path, sent raw.
    const elsewhere = await sys.post('/sales/addline', { org_id: '1', quotation_id: q.id, calculate_total: true });
    expect(elsewhere.body.quotation_total).toBe(488.75);

    const edited = await sys.post('/sales/orderdetail/', {
      org_id: '1',
      userid: 'u1',
      action: 'edit_quotation',
      quotation_id: q.id,
      quotation_status: 'sent',
      comments: 'Sent by mail',
    });
    expect(edited.statusCode).toBe(200);
    expect(edited.body.quotation).toMatchObject({
      id: q.id,
      quotation_number: q.quotation_number,
      quotation_status: 'sent',
      valid_until: later,
      comments: 'Sent by mail',
    });
    const refused = await refusal(sales().edit({ org_id: '1', quotation_id: q.id, quotation_status: 'converted' }));
    expect(refused).toMatchObject({ status: 400, code: 'invalid_state' });
    expect(refused.message).toContain('in status sent');
    expect((await quotationRow(q.id))?.quotation_status).toBe('sent');
    expect((await sales().edit({ org_id: '1', quotation_id: q.id, quotation_status: 'accepted' })).quotation.quotation_status).toBe(
      'accepted',
    );

    const listed = await sys.post('/sales/orderdetail/', { org_id: '1', userid: 'u1', search_key: 'acme', status: 'accepted' });
    expect(listed.body.pagination).toEqual({
      page_number: 1,
      page_size: 25,
      total_items: 1,
      total_pages: 1,
      has_next: false,
      has_previous: false,
    });
    expect(listed.body.quotations[0]).toMatchObject({
      id: q.id,
      partner: { id: partnerId, partnername: 'Acme Corporation', display_name: 'Acme' },
      quotation_total: 488.75,
      quotation_status: 'accepted',
    });
  });

  it('refuses bad input with a 400 naming the field, changing nothing', async () => {
    const before = await count();
    // Without its required partner (the types forbid it): sent raw.
    const { partner: _partner, ...withoutPartner } = createBody();
    const missing = await sys.post('/sales/addline', { action: 'create_quotation', ...withoutPartner });
    expect(missing).toMatchObject({ statusCode: 400, body: { code: 'validation_failed', errors: [{ field: 'partner' }] } });
    expect(await refusal(create({ valid_until: '2000-01-01' }))).toMatchObject({
      status: 400,
      code: 'validation_failed',
      errors: [{ field: 'valid_until' }],
    });
    expect(await refusal(create({ partner: '999999' }))).toMatchObject({ status: 400, code: 'not_found' });
    expect(await refusal(create({ quotation_number: 'QUO-00001' }))).toMatchObject({
      status: 400,
      code: 'duplicate',
      errors: [{ field: 'quotation_number' }],
    });
    // An action no operation has: raw, as no method of the client sends it.
    expect(await sys.post('/sales/addline', { org_id: '1', action: 'fly' })).toMatchObject({
      statusCode: 400,
      body: { code: 'unknown_action' },
    });
    expect(await count()).toBe(before);
  });

  it('converts once into a draft invoice, raises committed, and releases it when the invoice is validated', async () => {
    const q = await createQuotation({ quotation_reference: 'PO-CONVERT' });
    const committedBefore = (await balance()).committed;
    const { invoice } = await convert(q.id);
    expect(invoice).toEqual({
      id: expect.any(Number),
      orgid: 1,
      invoicenumber: expect.stringMatching(/^INV-\d{5}$/),
      invoicetype: 'invoiceout',
      partner: String(partnerId),
      invoicestatus: 'draft',
      subtotal: 225,
      tax_amount: 33.75,
      invoicetotal: 258.75,
    });
    expect(await quotationRow(q.id)).toMatchObject({
      quotation_status: 'converted',
      invoice_id: invoice.id,
      invoicenumber: invoice.invoicenumber,
    });
    const stored = await sys.client.invoicing.invoice.balances({ org_id: '1', id: invoice.id, include_items: true });
    expect(JSON.stringify(stored)).toContain(invoice.invoicenumber);
    await eventually(async () => expect((await balance()).committed).toBe(committedBefore + 258.75));

    expect(await refusal(convert(q.id))).toMatchObject({ status: 400, code: 'invalid_state' });
    expect(await refusal(sales().cancel({ org_id: '1', quotation_id: q.id }))).toMatchObject({ status: 400, code: 'invalid_state' });
    const fromQuotation = await sys.client.invoicing.invoice.list({ org_id: '1', search_key: invoice.invoicenumber });
    expect(fromQuotation.invoices).toHaveLength(1);

    await sys.client.invoicing.invoice.validate({ org_id: '1', userid: 'u1', id: invoice.id });
    await eventually(async () => expect(await balance()).toMatchObject({ committed: committedBefore, balance: 258.75 }));
  });

  it('releases the committed amount when the converted invoice is cancelled', async () => {
    const q = await createQuotation();
    const committedBefore = (await balance()).committed;
    const { invoice } = await convert(q.id);
    await eventually(async () => expect((await balance()).committed).toBe(committedBefore + 258.75));
    await sys.client.invoicing.invoice.cancel({ org_id: '1', userid: 'u1', id: invoice.id });
    await eventually(async () => expect((await balance()).committed).toBe(committedBefore));
    expect(await quotationRow(q.id)).toMatchObject({ quotation_status: 'converted', invoice_id: invoice.id });
  });

  it('refuses bad input on every operation with a 400 naming the field, and unknown quotations as not_found, changing nothing', async () => {
    const q = await createQuotation();
    const before = await quotationRow(q.id);
    const total = await count();
    // Invalid values and missing fields, most of which the types forbid: sent raw, one table.
    const writes: Array<[Record<string, unknown>, string]> = [
      [
        { action: 'create_quotation', partner: String(partnerId), quotation_type: 'quotation', quotation_date: today, valid_until: later },
        'quotation_date',
      ],
      [
        { action: 'create_quotation', partner: String(partnerId), quotation_date: `${today}T10:00:00`, valid_until: later },
        'quotation_type',
      ],
      [
        {
          action: 'create_quotation',
          partner: 'Acme',
          quotation_type: 'quotation',
          quotation_date: `${today}T10:00:00`,
          valid_until: later,
        },
        'partner',
      ],
      [
        {
          action: 'create_quotation',
          partner: String(partnerId),
          quotation_type: 'quotation',
          quotation_date: `${today}T10:00:00`,
          valid_until: later,
          // A line without tax_rate takes its product's default; one that names no VAT category is refused.
          line_items: [{ ...specLine, tax_category: 'X' }],
        },
        'line_items.0.tax_category',
      ],
      [{ action: 'add_line', quotation_id: q.id, ...specLine, tax_included: undefined }, 'tax_included'],
      [{ action: 'add_line', quotation_id: q.id, ...specLine, quantity: 'lots' }, 'quantity'],
      [{ action: 'add_line', quotation_id: q.id, ...specLine, price: -1 }, 'price'],
      [{ action: 'add_line', quotation_id: q.id, ...specLine, tax_rate: 101 }, 'tax_rate'],
      [{ action: 'add_line', quotation_id: q.id, ...specLine, price: '1.23456' }, 'price'],
      [{ action: 'add_line', quotation_id: 'first', ...specLine }, 'quotation_id'],
      [{ action: 'edit_quotation', quotation_id: q.id, valid_until: '2026-02-30' }, 'valid_until'],
      [{ action: 'edit_quotation', quotation_id: q.id, comments: 'x'.repeat(5001) }, 'comments'],
      [{ action: 'edit_quotation', quotation_id: q.id, quotation_number: 'Q'.repeat(51) }, 'quotation_number'],
      [{ action: 'edit_quotation', quotation_id: q.id, quotation_status: 'won' }, 'quotation_status'],
      [{ action: 'convert_to_invoice', quotation_id: q.id, invoicetype: 'invoice' }, 'invoicetype'],
      [{ action: 'convert_to_invoice', invoicetype: 'invoiceout' }, 'quotation_id'],
      [{ action: 'cancel_quotation', quotation_id: -3 }, 'quotation_id'],
    ];
    for (const [body, field] of writes) {
      const r = await sys.post('/sales/addline', { org_id: '1', userid: 'u1', ...body });
      expect(r).toMatchObject({ httpStatus: 400, statusCode: 400, body: { code: 'validation_failed' } });
      expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    for (const [body, field] of [
      [{ status: 'open' }, 'status'],
      [{ quotation_type: 'order' }, 'quotation_type'],
      [{ page_number: 0 }, 'page_number'],
      [{ search_key: 'x'.repeat(201) }, 'search_key'],
    ] as const) {
      const r = await sys.post('/sales/orderdetail', { org_id: '1', ...body });
      expect(r).toMatchObject({ statusCode: 400, body: { code: 'validation_failed', errors: [{ field }] } });
    }
    const unknown = 999999;
    for (const call of [
      () => sales().addLine({ org_id: '1', quotation_id: unknown, ...specLine }),
      () => sales().edit({ org_id: '1', quotation_id: unknown, comments: 'x' }),
      () => sales().cancel({ org_id: '1', quotation_id: unknown }),
      () => sales().convert({ org_id: '1', quotation_id: unknown, invoicetype: 'invoiceout' }),
      () => sales().total({ org_id: '1', quotation_id: unknown }),
    ]) {
      expect(await refusal(call())).toMatchObject({ status: 400, code: 'not_found', errors: [{ field: 'quotation_id' }] });
    }
    expect(await quotationRow(q.id)).toEqual(before);
    expect(await count()).toBe(total);
  });

  it('makes one invoice when conversions race, with or without an Idempotency-Key', async () => {
    // Each call sent once: the answers of the racing attempts themselves (a 409 included) are the point.
    const once = sys.clientOf(1, { retry: false });
    const q = await createQuotation();
    const racing = await Promise.allSettled(Array.from({ length: 5 }, () => convert(q.id, once)));
    const converted = racing.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(converted).toHaveLength(1);
    expect(racing.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []))).toMatchObject(
      Array(4).fill({ name: 'ApiError', status: 400, code: 'invalid_state' }),
    );

    const keyed = await createQuotation();
    const key = randomUUID();
    const sameKey = await Promise.allSettled(Array.from({ length: 3 }, () => convert(keyed.id, once, key)));
    const winners = sameKey.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(winners.length).toBeGreaterThanOrEqual(1);
    expect(new Set(winners.map((r) => r.invoice.id)).size).toBe(1);
    // The others found the key still claimed by the first.
    expect(sameKey.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []))).toMatchObject(
      Array(3 - winners.length).fill({ name: 'ApiError', status: 409 }),
    );
    const retried = await convert(keyed.id, once, key);
    expect(retried.invoice).toEqual(winners[0]!.invoice);

    const invoices = await sys.client.invoicing.invoice.list({ org_id: '1', page_size: 100 });
    const ids = invoices.invoices.map((i) => i.id);
    expect(ids.filter((id) => id === converted[0]!.invoice.id)).toHaveLength(1);
    expect(ids.filter((id) => id === winners[0]!.invoice.id)).toHaveLength(1);
  });

  it('cancels, and refuses converting a cancelled quotation', async () => {
    const q = await createQuotation();
    // The cancel on the list path (the spec gives it none, so every /sales path takes it): sent raw.
    const cancelled = await sys.post('/sales/orderdetail', { org_id: '1', userid: 'u1', action: 'cancel_quotation', quotation_id: q.id });
    expect(cancelled).toMatchObject({ statusCode: 200, body: { message: expect.stringContaining('cancelled') } });
    const r = await refusal(convert(q.id));
    expect(r).toMatchObject({ status: 400, code: 'invalid_state' });
    expect(r.message).toContain('in status cancelled');
    expect((await quotationRow(q.id))?.quotation_status).toBe('cancelled');
  });

  it('numbers 20 concurrent creates without gaps', async () => {
    const p = await org2.partners.partner.create({ org_id: '2', partnername: 'Busy Buyer', partner_type: 'both' });
    const [theirProduct] = (await newProducts(sys, ['Estimate item'], { org: 2 })) as [number];
    // Each sent once, so every create must succeed at its first attempt.
    const once = sys.clientOf(2, { retry: false });
    const replies = await Promise.all(
      Array.from({ length: 20 }, () =>
        once.sales.quotation.create(
          createBody({ partner: p.partner.id, quotation_type: 'estimate', line_items: [{ ...specLine, product_id: theirProduct }] }, 2),
        ),
      ),
    );
    expect(replies.map((r) => r.quotation.quotation_number).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `EST-${String(i + 1).padStart(5, '0')}`),
    );
  });

  it("keeps organizations apart: another org's quotation and partner are not found", async () => {
    const mine = await createQuotation();
    const theirSales = org2.sales.quotation;
    for (const call of [
      () => theirSales.addLine({ org_id: '2', quotation_id: mine.id, ...specLine }),
      () => theirSales.edit({ org_id: '2', quotation_id: mine.id, comments: 'x' }),
      () => theirSales.cancel({ org_id: '2', quotation_id: mine.id }),
      () => theirSales.convert({ org_id: '2', quotation_id: mine.id, invoicetype: 'invoiceout' }),
      () => theirSales.total({ org_id: '2', quotation_id: mine.id }),
    ]) {
      expect(await refusal(call())).toMatchObject({ status: 400, code: 'not_found' });
    }
    expect(await refusal(theirSales.get({ org_id: '2', quotation_id: mine.id }))).toMatchObject({
      status: 400,
      code: 'not_found',
      errors: [{ field: 'quotation_id' }],
    });
    // Org 1's product is unknown to org 2 as well.
    expect(await refusal(create({}, 2))).toMatchObject({ status: 400, code: 'not_found', errors: [{ field: 'line_items.0.product_id' }] });
    expect(await refusal(create({ line_items: [] }, 2))).toMatchObject({ status: 400, code: 'not_found', errors: [{ field: 'partner' }] });
    const theirs = await theirSales.list({ org_id: '2', page_size: 100 });
    expect(theirs.quotations.some((q) => q.id === mine.id)).toBe(false);
    expect(await refusal(theirSales.list({ org_id: '1' }))).toMatchObject({ status: 403 });
    expect((await quotationRow(mine.id))?.comments).toBeNull();
  });

  it('follows partner renames and refuses new quotations for a deleted partner', async () => {
    const partners = sys.client.partners.partner;
    const p = (await partners.create({ org_id: '1', partnername: 'Soon Gone', partner_type: 'customer' })).partner;
    const q = await createQuotation({ partner: p.id });
    await partners.edit({ org_id: '1', partner_id: p.id, partnername: 'Renamed Ltd' });
    await eventually(async () => expect((await quotationRow(q.id))?.partner.partnername).toBe('Renamed Ltd'));
    // An open quotation keeps its partner from being deleted (docs/partners.md): cancel it first.
    await sales().cancel({ org_id: '1', quotation_id: q.id });
    await partners.delete({ org_id: '1', partner_id: p.id });
    // The read model learns of the delete by event; wait for it rather than race it.
    const db = new pg.Client({ connectionString: sys.databaseUrl });
    await db.connect();
    try {
      await eventually(async () => {
        const { rows } = await db.query(
          'select deleted_at is not null as deleted from sales.partner_directory where org_id = 1 and id = $1',
          [p.id],
        );
        expect(rows[0]?.deleted).toBe(true);
      });
    } finally {
      await db.end();
    }
    expect(await refusal(create({ partner: p.id }))).toMatchObject({ status: 400, code: 'not_found', errors: [{ field: 'partner' }] });
    const found = await sales().list({ org_id: '1', search_key: 'Renamed' });
    expect(found.quotations.map((x) => x.id)).toEqual([q.id]);
  });

  it('reads a quotation back whole on /sales/orderdetail, lines and snapshots included, whatever the catalog does later', async () => {
    const [drill] = (await newProducts(sys, ['Drill'], { type: 'inventory' })) as [number];
    await sys.client.catalog.product.edit({ org_id: '1', product_id: drill, sku: 'DR-1', uom: 'pcs', price: 89.9 });
    const created = await createQuotation({ line_items: [{ product_id: drill, quantity: 2, tax_rate: 0, tax_included: false }] });
    expect(created.line_items).toEqual([
      expect.objectContaining({ product_id: String(drill), product_name: 'Drill', sku: 'DR-1', uom: 'pcs', price: 89.9, total: 179.8 }),
    ]);
    await sys.client.catalog.product.edit({ org_id: '1', product_id: drill, name: 'Drill v2', sku: 'DR-2', price: 99 });
    const read = await sales().get({ org_id: '1', quotation_id: created.id });
    expect(read.quotation).toEqual(created);
    // The total operation on the same path still answers by its flag.
    expect((await sales().total({ org_id: '1', quotation_id: created.id })).quotation_total).toBe(179.8);
  });

  it('refuses an unknown or deleted product on create and add line with a 400 naming the line, writing nothing', async () => {
    const [gone] = (await newProducts(sys, ['Discontinued'])) as [number];
    await sys.client.catalog.product.delete({ org_id: '1', product_id: gone });
    const q = await createQuotation();
    const total = await count();
    expect(
      await refusal(create({ line_items: [specLine, { ...specLine, product_id: gone }, { ...specLine, product_id: 987654 }] })),
    ).toMatchObject({
      status: 400,
      code: 'not_found',
      errors: [{ field: 'line_items.1.product_id' }, { field: 'line_items.2.product_id' }],
    });
    expect(await refusal(sales().addLine({ org_id: '1', quotation_id: q.id, ...specLine, product_id: gone }))).toMatchObject({
      status: 400,
      code: 'not_found',
      errors: [{ field: 'product_id' }],
    });
    expect(await count()).toBe(total);
    expect((await sales().get({ org_id: '1', quotation_id: q.id })).quotation.line_items).toHaveLength(1);
  });

  it("converts a quotation whose rate the organization's new accounting currency made moot: the invoice books at 1", async () => {
    // Organization 2, whose books have not posted, so its accounting currency may still move (docs/invoicing.md "The books' settings").
    const organization = org2.partners.organization;
    await organization.set({ org_id: '2', default_currency: 'EUR' });
    const buyer = (await org2.partners.partner.create({ org_id: '2', userid: 'u1', partnername: 'Moot Inc', partner_type: 'customer' }))
      .partner;
    const [product] = (await newProducts(sys, ['Moot widget'], { org: 2 })) as [number];
    const { quotation: q } = await eventually(() =>
      create({ partner: String(buyer.id), line_items: [{ ...specLine, product_id: product }], currency: 'USD', exchange_rate: 0.9 }, 2),
    );
    expect(q).toMatchObject({ currency: 'USD', exchange_rate: 0.9 });
    // The organization now books in the quotation's currency; invoicing has it once the profile answers.
    await organization.set({ org_id: '2', default_currency: 'USD' });
    const db = new pg.Client({ connectionString: sys.databaseUrl });
    await db.connect();
    try {
      const { invoice } = await org2.sales.quotation.convert({ org_id: '2', userid: 'u1', quotation_id: q.id, invoicetype: 'invoiceout' });
      const { rows } = await db.query('select currency, exchange_rate from invoicing.invoices where id = $1', [invoice.id]);
      expect(rows).toEqual([{ currency: 'USD', exchange_rate: null }]);
      // It posts in the organization's own currency, needing no rate.
      await org2.invoicing.invoice.validate({ org_id: '2', id: invoice.id, validate_invoice: true });
    } finally {
      await db.end();
    }
  });
});
