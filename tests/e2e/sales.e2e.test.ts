import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { newProducts } from '../support/catalog';
import { eventually, startTestSystem, type TestSystem } from '../support/system';

const today = new Date().toISOString().slice(0, 10);
const later = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
// Lines name catalog products: beforeAll creates them and puts their ids here.
let gadgetId = 0;
const specLine = { product_id: 0, product_name: 'Widget', description: 'Blue', quantity: 5, price: 50, discount: 10, tax_rate: 15, tax_included: false, subtotal: 225, tax_amount: 33.75, total: 258.75 };

describe('sales through the gateway', () => {
  let sys: TestSystem;
  let partnerId: number;
  beforeAll(async () => {
    sys = await startTestSystem();
    const created = await sys.post('/crm/editpatner', {
      org_id: '1', userid: 'u1', action: 'create', partnername: 'Acme Corporation', display_name: 'Acme', partner_type: 'customer', currency: 'USD', credit_limit: 100000,
    });
    expect(created.statusCode).toBe(200);
    partnerId = created.body.partner.id;
    [specLine.product_id, gadgetId] = (await newProducts(sys, ['Widget', 'Gadget'])) as [number, number];
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const create = (fields: Record<string, unknown> = {}, org: 1 | 2 = 1) =>
    sys.post('/sales/addline', {
      org_id: String(org), userid: 'u1', action: 'create_quotation', partner: String(partnerId), quotation_type: 'quotation', quotation_status: 'draft',
      quotation_date: `${today}T10:00:00`, valid_until: later, line_items: [specLine], ...fields,
    }, { org });
  const convert = (quotationId: number, headers: Record<string, string> = {}) =>
    sys.post('/sales/addline', { org_id: '1', userid: 'u1', action: 'convert_to_invoice', quotation_id: quotationId, invoicetype: 'invoiceout' }, { headers });
  const balance = async () => (await sys.post('/crm/partners', { org_id: '1', partner_id: partnerId })).body.partner;
  const quotationRow = async (id: number) =>
    (await sys.post('/sales/orderdetail', { org_id: '1', page_size: 100 })).body.quotations.find((q: { id: number }) => q.id === id);

  it("creates the spec's worked example, numbered QUO-00001, with a partner not seen by events yet", async () => {
    const r = await create({ comments: 'First', quotation_reference: 'PO-1' });
    expect(r.httpStatus).toBe(200);
    expect(r.body.message).toEqual(expect.any(String));
    expect(r.body.quotation).toMatchObject({
      orgid: 1, partner: String(partnerId), quotation_number: 'QUO-00001', quotation_type: 'quotation', quotation_status: 'draft',
      quotation_date: `${today}T10:00:00`, valid_until: later, comments: 'First', quotation_reference: 'PO-1',
      subtotal: 225, tax_amount: 33.75, quotation_total: 258.75, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
    });
    expect(r.body.quotation.line_items[0]).toMatchObject({ subtotal: 225, tax_amount: 33.75, total: 258.75 });
  });

  it('adds lines, edits, totals and lists on the spec paths and on any /sales path', async () => {
    const q = (await create({ line_items: [] })).body.quotation;
    const added = await sys.post('/sales/addline', {
      org_id: '1', userid: 'u1', action: 'add_line', quotation_id: q.id, product_id: String(gadgetId), product_name: 'Gadget', quantity: 2, price: 115, tax_rate: 15, tax_included: true,
    });
    expect(added.statusCode).toBe(200);
    expect(added.body.line_item).toEqual({
      id: expect.any(Number), quotation_id: q.id, product_id: String(gadgetId), variant_id: null, location_id: null, product_name: 'Gadget', sku: null, uom: null, description: null, quantity: 2, price: 115, discount: 0, tax_rate: 15,
      tax_included: true, subtotal: 200, tax_amount: 30, total: 230,
    });
    await sys.post('/sales/addline', { org_id: '1', action: 'add_line', quotation_id: q.id, ...specLine });
    const total = await sys.post('/sales/orderdetail', { org_id: '1', quotation_id: q.id, calculate_total: true });
    expect(total.body).toEqual({ message: expect.any(String), quotation_id: q.id, subtotal: 425, tax_amount: 63.75, discount_total: 25, quotation_total: 488.75, currency: 'USD' });
    const elsewhere = await sys.post('/sales/addline', { org_id: '1', quotation_id: q.id, calculate_total: true });
    expect(elsewhere.body.quotation_total).toBe(488.75);

    const edited = await sys.post('/sales/orderdetail/', { org_id: '1', userid: 'u1', action: 'edit_quotation', quotation_id: q.id, quotation_status: 'sent', comments: 'Sent by mail' });
    expect(edited.statusCode).toBe(200);
    expect(edited.body.quotation).toMatchObject({ id: q.id, quotation_number: q.quotation_number, quotation_status: 'sent', valid_until: later, comments: 'Sent by mail' });
    const refused = await sys.post('/sales/addline', { org_id: '1', action: 'edit_quotation', quotation_id: q.id, quotation_status: 'converted' });
    expect(refused).toMatchObject({ httpStatus: 400, statusCode: 400, body: { code: 'invalid_state' } });
    expect(refused.body.message).toContain('in status sent');
    expect((await quotationRow(q.id)).quotation_status).toBe('sent');
    expect((await sys.post('/sales/addline', { org_id: '1', action: 'edit_quotation', quotation_id: q.id, quotation_status: 'accepted' })).body.quotation.quotation_status).toBe('accepted');

    const listed = await sys.post('/sales/orderdetail/', { org_id: '1', userid: 'u1', search_key: 'acme', status: 'accepted' });
    expect(listed.body.pagination).toEqual({ page_number: 1, page_size: 25, total_items: 1, total_pages: 1, has_next: false, has_previous: false });
    expect(listed.body.quotations[0]).toMatchObject({ id: q.id, partner: { id: partnerId, partnername: 'Acme Corporation', display_name: 'Acme' }, quotation_total: 488.75, quotation_status: 'accepted' });
  });

  it('refuses bad input with a 400 naming the field, changing nothing', async () => {
    const before = (await sys.post('/sales/orderdetail', { org_id: '1' })).body.pagination.total_items;
    const missing = await create({ partner: undefined });
    expect(missing).toMatchObject({ statusCode: 400, body: { code: 'validation_failed', errors: [{ field: 'partner' }] } });
    expect(await create({ valid_until: '2000-01-01' })).toMatchObject({ statusCode: 400, body: { code: 'validation_failed', errors: [{ field: 'valid_until' }] } });
    expect(await create({ partner: '999999' })).toMatchObject({ statusCode: 400, body: { code: 'not_found' } });
    expect(await create({ quotation_number: 'QUO-00001' })).toMatchObject({ statusCode: 400, body: { code: 'duplicate', errors: [{ field: 'quotation_number' }] } });
    expect(await sys.post('/sales/addline', { org_id: '1', action: 'fly' })).toMatchObject({ statusCode: 400, body: { code: 'unknown_action' } });
    expect((await sys.post('/sales/orderdetail', { org_id: '1' })).body.pagination.total_items).toBe(before);
  });

  it('converts once into a draft invoice, raises committed, and releases it when the invoice is validated', async () => {
    const q = (await create({ quotation_reference: 'PO-CONVERT' })).body.quotation;
    const committedBefore = (await balance()).committed;
    const r = await convert(q.id);
    expect(r.statusCode).toBe(200);
    expect(r.body.invoice).toEqual({
      id: expect.any(Number), orgid: 1, invoicenumber: expect.stringMatching(/^INV-\d{5}$/), invoicetype: 'invoiceout', partner: String(partnerId), invoicestatus: 'draft',
      subtotal: 225, tax_amount: 33.75, invoicetotal: 258.75,
    });
    const invoice = r.body.invoice;
    expect(await quotationRow(q.id)).toMatchObject({ quotation_status: 'converted', invoice_id: invoice.id, invoicenumber: invoice.invoicenumber });
    const stored = await sys.post('/invoicing/getinvoice', { org_id: '1', id: invoice.id, include_items: true });
    expect(stored.statusCode).toBe(200);
    expect(JSON.stringify(stored.body)).toContain(invoice.invoicenumber);
    await eventually(async () => expect((await balance()).committed).toBe(committedBefore + 258.75));

    const again = await convert(q.id);
    expect(again).toMatchObject({ statusCode: 400, body: { code: 'invalid_state' } });
    expect(await sys.post('/sales/addline', { org_id: '1', action: 'cancel_quotation', quotation_id: q.id })).toMatchObject({ statusCode: 400, body: { code: 'invalid_state' } });
    const fromQuotation = await sys.post('/invoicing/listinvoices', { org_id: '1', search_key: invoice.invoicenumber });
    expect(fromQuotation.body.invoices).toHaveLength(1);

    const validated = await sys.post('/invoicing/invoice/new', { org_id: '1', userid: 'u1', validate_invoice: true, id: invoice.id });
    expect(validated.statusCode).toBe(200);
    await eventually(async () => expect(await balance()).toMatchObject({ committed: committedBefore, balance: 258.75 }));
  });

  it('releases the committed amount when the converted invoice is cancelled', async () => {
    const q = (await create()).body.quotation;
    const committedBefore = (await balance()).committed;
    const invoice = (await convert(q.id)).body.invoice;
    await eventually(async () => expect((await balance()).committed).toBe(committedBefore + 258.75));
    const cancelled = await sys.post('/invoicing/invoice/new', { org_id: '1', userid: 'u1', cancel_invoice: true, id: invoice.id });
    expect(cancelled.statusCode).toBe(200);
    await eventually(async () => expect((await balance()).committed).toBe(committedBefore));
    expect(await quotationRow(q.id)).toMatchObject({ quotation_status: 'converted', invoice_id: invoice.id });
  });

  it('refuses bad input on every operation with a 400 naming the field, and unknown quotations as not_found, changing nothing', async () => {
    const q = (await create()).body.quotation;
    const before = await quotationRow(q.id);
    const count = async () => (await sys.post('/sales/orderdetail', { org_id: '1' })).body.pagination.total_items;
    const total = await count();
    const writes: Array<[Record<string, unknown>, string]> = [
      [{ action: 'create_quotation', partner: String(partnerId), quotation_type: 'quotation', quotation_date: today, valid_until: later }, 'quotation_date'],
      [{ action: 'create_quotation', partner: String(partnerId), quotation_date: `${today}T10:00:00`, valid_until: later }, 'quotation_type'],
      [{ action: 'create_quotation', partner: 'Acme', quotation_type: 'quotation', quotation_date: `${today}T10:00:00`, valid_until: later }, 'partner'],
      [{ action: 'create_quotation', partner: String(partnerId), quotation_type: 'quotation', quotation_date: `${today}T10:00:00`, valid_until: later, line_items: [{ ...specLine, tax_rate: undefined }] }, 'line_items.0.tax_rate'],
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
    for (const [body, field] of [[{ status: 'open' }, 'status'], [{ quotation_type: 'order' }, 'quotation_type'], [{ page_number: 0 }, 'page_number'], [{ search_key: 'x'.repeat(201) }, 'search_key']] as const) {
      const r = await sys.post('/sales/orderdetail', { org_id: '1', ...body });
      expect(r).toMatchObject({ statusCode: 400, body: { code: 'validation_failed', errors: [{ field }] } });
    }
    for (const body of [
      { action: 'add_line', quotation_id: 999999, ...specLine },
      { action: 'edit_quotation', quotation_id: 999999, comments: 'x' },
      { action: 'cancel_quotation', quotation_id: 999999 },
      { action: 'convert_to_invoice', quotation_id: 999999, invoicetype: 'invoiceout' },
      { quotation_id: 999999, calculate_total: true },
    ]) {
      expect(await sys.post('/sales/addline', { org_id: '1', ...body })).toMatchObject({ statusCode: 400, body: { code: 'not_found', errors: [{ field: 'quotation_id' }] } });
    }
    expect(await quotationRow(q.id)).toEqual(before);
    expect(await count()).toBe(total);
  });

  it('makes one invoice when conversions race, with or without an Idempotency-Key', async () => {
    const q = (await create()).body.quotation;
    const racing = await Promise.all(Array.from({ length: 5 }, () => convert(q.id)));
    expect(racing.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(racing.filter((r) => r.statusCode === 400 && r.body.code === 'invalid_state')).toHaveLength(4);

    const keyed = (await create()).body.quotation;
    const key = randomUUID();
    const sameKey = await Promise.all(Array.from({ length: 3 }, () => convert(keyed.id, { 'Idempotency-Key': key })));
    const winners = sameKey.filter((r) => r.statusCode === 200);
    expect(winners.length).toBeGreaterThanOrEqual(1);
    expect(new Set(winners.map((r) => r.body.invoice.id)).size).toBe(1);
    expect(sameKey.every((r) => r.statusCode === 200 || r.statusCode === 409)).toBe(true);
    const retried = await convert(keyed.id, { 'Idempotency-Key': key });
    expect(retried.body.invoice).toEqual(winners[0]!.body.invoice);

    const invoices = await sys.post('/invoicing/listinvoices', { org_id: '1', page_size: 100 });
    const ids = invoices.body.invoices.map((i: { id: number }) => i.id);
    expect(ids.filter((id: number) => id === racing.find((r) => r.statusCode === 200)!.body.invoice.id)).toHaveLength(1);
    expect(ids.filter((id: number) => id === winners[0]!.body.invoice.id)).toHaveLength(1);
  });

  it('cancels, and refuses converting a cancelled quotation', async () => {
    const q = (await create()).body.quotation;
    const cancelled = await sys.post('/sales/orderdetail', { org_id: '1', userid: 'u1', action: 'cancel_quotation', quotation_id: q.id });
    expect(cancelled).toMatchObject({ statusCode: 200, body: { message: expect.stringContaining('cancelled') } });
    const r = await convert(q.id);
    expect(r).toMatchObject({ statusCode: 400, body: { code: 'invalid_state' } });
    expect(r.body.message).toContain('in status cancelled');
    expect((await quotationRow(q.id)).quotation_status).toBe('cancelled');
  });

  it('numbers 20 concurrent creates without gaps', async () => {
    const p = await sys.post('/crm/editpatner', { org_id: '2', action: 'create', partnername: 'Busy Buyer', partner_type: 'both' }, { org: 2 });
    const [theirProduct] = await newProducts(sys, ['Estimate item'], { org: 2 });
    const replies = await Promise.all(Array.from({ length: 20 }, () => create({ partner: p.body.partner.id, quotation_type: 'estimate', line_items: [{ ...specLine, product_id: theirProduct }] }, 2)));
    expect(replies.every((r) => r.statusCode === 200)).toBe(true);
    expect(replies.map((r) => r.body.quotation.quotation_number).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `EST-${String(i + 1).padStart(5, '0')}`));
  });

  it("keeps organizations apart: another org's quotation and partner are not found", async () => {
    const mine = (await create()).body.quotation;
    const asOrg2 = (body: Record<string, unknown>, path = '/sales/addline') => sys.post(path, { org_id: '2', ...body }, { org: 2 });
    for (const body of [
      { action: 'add_line', quotation_id: mine.id, ...specLine },
      { action: 'edit_quotation', quotation_id: mine.id, comments: 'x' },
      { action: 'cancel_quotation', quotation_id: mine.id },
      { action: 'convert_to_invoice', quotation_id: mine.id, invoicetype: 'invoiceout' },
      { quotation_id: mine.id, calculate_total: true },
    ]) {
      expect(await asOrg2(body)).toMatchObject({ statusCode: 400, body: { code: 'not_found' } });
    }
    expect(await asOrg2({ quotation_id: mine.id }, '/sales/orderdetail')).toMatchObject({ statusCode: 400, body: { code: 'not_found', errors: [{ field: 'quotation_id' }] } });
    // Org 1's product is unknown to org 2 as well.
    expect(await create({}, 2)).toMatchObject({ statusCode: 400, body: { code: 'not_found', errors: [{ field: 'line_items.0.product_id' }] } });
    expect(await create({ line_items: [] }, 2)).toMatchObject({ statusCode: 400, body: { code: 'not_found', errors: [{ field: 'partner' }] } });
    const theirs = await sys.post('/sales/orderdetail', { org_id: '2', page_size: 100 }, { org: 2 });
    expect(theirs.body.quotations.some((q: { id: number }) => q.id === mine.id)).toBe(false);
    expect(await sys.post('/sales/orderdetail', { org_id: '1' }, { org: 2 })).toMatchObject({ statusCode: 403 });
    expect((await quotationRow(mine.id)).comments).toBeNull();
  });

  it('follows partner renames and refuses new quotations for a deleted partner', async () => {
    const p = (await sys.post('/crm/editpatner', { org_id: '1', action: 'create', partnername: 'Soon Gone', partner_type: 'customer' })).body.partner;
    const q = (await create({ partner: p.id })).body.quotation;
    await sys.post('/crm/editpatner', { org_id: '1', action: 'edit', partner_id: p.id, partnername: 'Renamed Ltd' });
    await eventually(async () => expect((await quotationRow(q.id)).partner.partnername).toBe('Renamed Ltd'));
    // An open quotation keeps its partner from being deleted (docs/partners.md): cancel it first.
    expect((await sys.post('/sales/addline', { org_id: '1', action: 'cancel_quotation', quotation_id: q.id })).statusCode).toBe(200);
    expect((await sys.post('/crm/editpatner', { org_id: '1', action: 'delete', partner_id: p.id })).statusCode).toBe(200);
    // The read model learns of the delete by event; wait for it rather than race it.
    const db = new pg.Client({ connectionString: sys.databaseUrl });
    await db.connect();
    try {
      await eventually(async () => {
        const { rows } = await db.query('select deleted_at is not null as deleted from sales.partner_directory where org_id = 1 and id = $1', [p.id]);
        expect(rows[0]?.deleted).toBe(true);
      });
    } finally {
      await db.end();
    }
    expect(await create({ partner: p.id })).toMatchObject({ statusCode: 400, body: { code: 'not_found', errors: [{ field: 'partner' }] } });
    const found = await sys.post('/sales/orderdetail', { org_id: '1', search_key: 'Renamed' });
    expect(found.body.quotations.map((x: { id: number }) => x.id)).toEqual([q.id]);
  });

  it('reads a quotation back whole on /sales/orderdetail, lines and snapshots included, whatever the catalog does later', async () => {
    const [drill] = (await newProducts(sys, ['Drill'], { type: 'inventory' })) as [number];
    await sys.post('/inventory/editproduct', { org_id: '1', product_id: drill, sku: 'DR-1', uom: 'pcs', price: 89.9 });
    const created = (await create({ line_items: [{ product_id: drill, quantity: 2, tax_rate: 0, tax_included: false }] })).body.quotation;
    expect(created.line_items).toEqual([expect.objectContaining({ product_id: String(drill), product_name: 'Drill', sku: 'DR-1', uom: 'pcs', price: 89.9, total: 179.8 })]);
    await sys.post('/inventory/editproduct', { org_id: '1', product_id: drill, name: 'Drill v2', sku: 'DR-2', price: 99 });
    const read = await sys.post('/sales/orderdetail', { org_id: '1', quotation_id: created.id });
    expect(read).toMatchObject({ httpStatus: 200, statusCode: 200 });
    expect(read.body.quotation).toEqual(created);
    // The total operation on the same path still answers by its flag.
    expect((await sys.post('/sales/orderdetail', { org_id: '1', quotation_id: created.id, calculate_total: true })).body.quotation_total).toBe(179.8);
  });

  it('refuses an unknown or deleted product on create and add line with a 400 naming the line, writing nothing', async () => {
    const [gone] = (await newProducts(sys, ['Discontinued'])) as [number];
    expect((await sys.post('/inventory/editproduct', { org_id: '1', product_id: gone, delete: true })).statusCode).toBe(200);
    const q = (await create()).body.quotation;
    const count = async () => (await sys.post('/sales/orderdetail', { org_id: '1' })).body.pagination.total_items;
    const total = await count();
    expect(await create({ line_items: [specLine, { ...specLine, product_id: gone }, { ...specLine, product_id: 987654 }] })).toMatchObject({
      statusCode: 400, body: { code: 'not_found', errors: [{ field: 'line_items.1.product_id' }, { field: 'line_items.2.product_id' }] },
    });
    expect(await sys.post('/sales/addline', { org_id: '1', action: 'add_line', quotation_id: q.id, ...specLine, product_id: gone })).toMatchObject({
      statusCode: 400, body: { code: 'not_found', errors: [{ field: 'product_id' }] },
    });
    expect(await count()).toBe(total);
    expect((await sys.post('/sales/orderdetail', { org_id: '1', quotation_id: q.id })).body.quotation.line_items).toHaveLength(1);
  });
});
