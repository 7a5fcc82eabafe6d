import type { EventEnvelope } from '@bo/contracts';
import { AmqpBus, createDb, createLogger, testing, type Knex } from '@bo/runtime';
import { newProducts } from '../support/catalog';
import { eventually, startTestSystem, type TestSystem } from '../support/system';

/**
 * Issue 11, "documents meet the catalog", through the gateway over PostgreSQL and RabbitMQ: lines
 * name real products, validated invoices move stock exactly once, credit exposure counts what
 * converted quotations commit, and a recurring contract bills each period once.
 */
describe('stock follows validated documents', () => {
  let sys: TestSystem;
  let invoicingDb: Knex;
  let bus: AmqpBus;
  let customer: number;
  let vendor: number;
  let defaultLoc: string;
  let northLoc: string;

  beforeAll(async () => {
    sys = await startTestSystem();
    invoicingDb = createDb(sys.databaseUrl, 'invoicing', 2);
    bus = new AmqpBus({ url: await testing.testAmqpUrl(), prefix: sys.system.config.BUS_PREFIX, log: createLogger('e2e', 'silent') });
    await bus.connect();
    customer = (await ok('/crm/editpatner', { action: 'create', partnername: 'Buyer', partner_type: 'customer' })).partner.id;
    vendor = (await ok('/crm/editpatner', { action: 'create', partnername: 'Supplier', partner_type: 'vendor' })).partner.id;
    const warehouse = await ok('/inventory/ops/getdata', { action: 'create_warehouse', name: 'North' });
    northLoc = warehouse.location.location_id;
    defaultLoc = (await ok('/inventory/ops/getdata', { action: 'list_locations' })).locations.find((l: { is_default: boolean }) => l.is_default).location_id;
  });
  afterAll(async () => {
    await bus?.close();
    await invoicingDb?.destroy();
    await sys?.stop();
  });

  async function ok(path: string, payload: Record<string, unknown>): Promise<Record<string, any>> {
    const res = await sys.post(path, { org_id: '1', userid: '7', ...payload });
    if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${JSON.stringify(res.body)}`);
    return res.body;
  }
  const inventoryProduct = async (name: string, stock: number) => (await ok('/inventory/editproduct', { name, type: 'inventory', stock })).product.id as number;
  const line = (productId: number, quantity: number, extra: Record<string, unknown> = {}) => ({ product_id: productId, quantity, price: 10, tax_rate: 0, tax_included: false, ...extra });
  const invoice = async (invoicetype: string, partner: number, lines: Array<Record<string, unknown>>) =>
    (await ok('/invoicing/invoice/new', { invoicetype, partner, line_items: lines })).invoice as { id: number; invoicenumber: string };
  const validate = (id: number) => ok('/invoicing/invoice/new', { validate_invoice: true, id });
  const stock = async (productId: number) => {
    const details = await ok('/inventory/ops/getdata', { action: 'stock_details', product_id: productId });
    return { total: details.current_stock as number, at: Object.fromEntries(details.stock_details.map((d: { location_id: string; stock_quantity: number }) => [d.location_id, d.stock_quantity])), details };
  };
  const validatedEvent = async (invoiceId: number): Promise<EventEnvelope> =>
    (await invoicingDb('outbox').where({ type: 'invoicing.invoice.validated' }).whereRaw("(envelope->'data'->>'invoice_id')::int = ?", [invoiceId]).first()).envelope;

  it('lowers the stock of a customer invoice at the line location, once even when the event is delivered twice', async () => {
    const widget = await inventoryProduct('Widget', 10);
    await ok('/inventory/ops/getdata', { action: 'stock_adjustment', product_id: widget, qty_locations: { [northLoc]: 4 } });
    const sale = await invoice('invoiceout', customer, [line(widget, 3), line(widget, 1, { location_id: northLoc })]);
    await validate(sale.id);
    await eventually(async () => expect((await stock(widget)).at).toEqual({ [defaultLoc]: 7, [northLoc]: 3 }));

    // RabbitMQ redelivers the very same event (same id), as after a consumer crash before its ack.
    await bus.publish(await validatedEvent(sale.id));
    // A later document's effect is the positive signal that the duplicate was behind it in the queue.
    const later = await invoice('invoiceout', customer, [line(widget, 2)]);
    await validate(later.id);
    await eventually(async () => expect((await stock(widget)).at).toEqual({ [defaultLoc]: 5, [northLoc]: 3 }));
    const { details } = await stock(widget);
    expect(details.recent_moves.filter((m: { reference: string }) => m.reference === sale.invoicenumber)).toEqual([
      expect.objectContaining({ source: 'document', document: { type: 'invoiceout', id: sale.id, number: sale.invoicenumber }, total_change: -4 }),
    ]);
  });

  it('raises stock for a vendor bill, reverses with credit notes, and moves nothing for service products', async () => {
    const bolt = await inventoryProduct('Bolt', 0);
    const [fee] = (await newProducts(sys, ['Delivery fee'])) as [number];
    const bill = await invoice('invoicein', vendor, [line(bolt, 20, { location_id: northLoc }), line(fee, 1)]);
    await validate(bill.id);
    await eventually(async () => expect((await stock(bolt)).at).toEqual({ [northLoc]: 20 }));
    const vendorCredit = await invoice('creditin', vendor, [line(bolt, 5, { location_id: northLoc })]);
    await validate(vendorCredit.id);
    await eventually(async () => expect((await stock(bolt)).at).toEqual({ [northLoc]: 15 }));
    const sale = await invoice('invoiceout', customer, [line(bolt, 6, { location_id: northLoc }), line(fee, 1)]);
    await validate(sale.id);
    await eventually(async () => expect((await stock(bolt)).at).toEqual({ [northLoc]: 9 }));
    const customerReturn = await invoice('creditout', customer, [line(bolt, 2)]);
    await validate(customerReturn.id);
    await eventually(async () => expect((await stock(bolt)).at).toEqual({ [northLoc]: 9, [defaultLoc]: 2 }));
    // The fee's product has no stock and no moves.
    const feeStock = await stock(fee);
    expect([feeStock.total, feeStock.details.recent_moves]).toEqual([0, []]);
  });

  it('applies the stock of an invoice validated while catalog was down once catalog starts again, even below zero', async () => {
    const gear = await inventoryProduct('Gear', 1);
    const sale = await invoice('invoiceout', customer, [line(gear, 3)]);
    await sys.system.stopService('catalog');
    try {
      // Validation does not need catalog: the event waits in catalog's queue.
      await validate(sale.id);
      // And a new line cannot be checked meanwhile: 503, nothing written.
      const refused = await sys.post('/invoicing/invoice/new', { org_id: '1', invoicetype: 'invoiceout', partner: customer, line_items: [line(gear, 1)] });
      expect(refused).toMatchObject({ statusCode: 503, body: { code: 'service_unavailable' } });
    } finally {
      await sys.system.startService('catalog');
    }
    await eventually(async () => expect((await stock(gear)).details.stock_details).toEqual([expect.objectContaining({ location_id: defaultLoc, stock_quantity: -2, negative: true })]));
    // Adjustments still may not go below zero.
    const adjust = await sys.post('/inventory/ops/getdata', { org_id: '1', action: 'stock_adjustment', product_id: gear, qty_locations: { [defaultLoc]: -1 } });
    expect(adjust.statusCode).toBe(400);
  });

  it('refuses an unknown product on invoice create, add line and a recurring child with a 400 naming it, writing nothing', async () => {
    const [gone] = (await newProducts(sys, ['Retired'])) as [number];
    const [kept] = (await newProducts(sys, ['Kept'])) as [number];
    const contract = await ok('/invoicing/invoice/new', {
      invoicetype: 'invoiceout', partner: customer, line_items: [line(kept, 1), line(gone, 1)],
      recurring: { enabled: true, frequency: 'monthly', start_date: new Date().toISOString().slice(0, 10) },
    });
    const draft = await invoice('invoiceout', customer, [line(kept, 1)]);
    await ok('/inventory/editproduct', { product_id: gone, delete: true });
    const count = async () => (await ok('/invoicing/listinvoices', { page_size: 100 })).pagination.total_items as number;
    const before = await count();
    const created = await sys.post('/invoicing/invoice/new', { org_id: '1', invoicetype: 'invoiceout', partner: customer, line_items: [line(kept, 1), line(gone, 1)] });
    expect(created).toMatchObject({ statusCode: 400, body: { code: 'not_found', errors: [{ field: 'line_items.1.product_id' }] } });
    const added = await sys.post('/invoicing/addline', { org_id: '1', invoice_id: draft.id, ...line(999999, 1) });
    expect(added).toMatchObject({ statusCode: 400, body: { code: 'not_found', errors: [{ field: 'product_id' }] } });
    const child = await sys.post('/invoicing/invoice/new', { org_id: '1', generate_child_invoice: true, id: contract.invoice.id });
    expect(child).toMatchObject({ statusCode: 400, body: { code: 'not_found', errors: [{ field: 'line_items.1.product_id' }] } });
    expect(await count()).toBe(before);
    expect((await ok('/invoicing/getinvoice', { id: draft.id, include_items: true })).invoices[0].line_items).toHaveLength(1);
  });

  it('bills the first period of a recurring contract once: the first child covers the period after the parent', async () => {
    const [hosting] = (await newProducts(sys, ['Hosting'])) as [number];
    const start = new Date().toISOString().slice(0, 10);
    const created = await ok('/invoicing/invoice/new', {
      invoicetype: 'invoiceout', partner: customer, invoicedatetime: `${start}T00:00:00`, line_items: [line(hosting, 1)],
      recurring: { enabled: true, frequency: 'yearly', start_date: start },
    });
    const nextYear = `${Number(start.slice(0, 4)) + 1}${start.slice(4)}`.replace(/-02-29$/, '-02-28');
    expect(created.invoice.recurring).toMatchObject({ start_date: start, next_run_date: nextYear, generated_count: 0 });
    const generated = await ok('/invoicing/invoice/new', { generate_child_invoice: true, id: created.invoice.id });
    expect(generated.child.invoicedatetime.slice(0, 10)).toBe(nextYear);
    // Two periods ahead is refused.
    expect(await sys.post('/invoicing/invoice/new', { org_id: '1', generate_child_invoice: true, id: created.invoice.id })).toMatchObject({ statusCode: 400, body: { code: 'invalid_state' } });
  });

  it("refuses a sale whose exposure passes the credit limit, naming balance, committed and total; the balance view shows exposure and the commitment", async () => {
    const partner = (await ok('/crm/editpatner', { action: 'create', partnername: 'Committed Co', partner_type: 'customer', credit_limit: 500 })).partner.id as number;
    const [service] = (await newProducts(sys, ['Consulting'])) as [number];
    const today = new Date().toISOString().slice(0, 10);
    const quotation = (await ok('/sales/addline', {
      action: 'create_quotation', partner, quotation_type: 'quotation', quotation_date: `${today}T09:00:00`, valid_until: today, line_items: [line(service, 30)],
    })).quotation;
    const converted = await ok('/sales/addline', { action: 'convert_to_invoice', quotation_id: quotation.id, invoicetype: 'invoiceout' });
    const sale = await invoice('invoiceout', partner, [line(service, 25, { price: 10.35 })]);
    const refused = await sys.post('/invoicing/invoice/new', { org_id: '1', validate_invoice: true, id: sale.id });
    expect(refused).toMatchObject({
      statusCode: 400, body: { code: 'credit_limit_exceeded', message: expect.stringContaining('balance 0.00 + committed 300.00 + this invoice 258.75 = 558.75, above the credit limit 500.00') },
    });
    await eventually(async () => {
      const view = await ok('/crm/partners', { partner_id: partner, include_transactions: true });
      expect(view.partner).toMatchObject({ balance: 0, committed: 300, exposure: 300, credit_limit: 500, available_credit: 500 });
      expect(view.transactions).toEqual([expect.objectContaining({ type: 'commitment', document_number: quotation.quotation_number, amount: 300, paid: 0, due: 300 })]);
    });
    // Validating the converted invoice itself does not count it twice: 0 + 0 + 300 fits.
    await validate(converted.invoice.id);
    expect((await ok('/invoicing/invoice/new', { validate_invoice: true, id: sale.id, override_credit_limit: true })).invoice.invoicestatus).toBe('open');
  });
});
