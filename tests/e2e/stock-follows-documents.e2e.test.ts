import type { OperationNamed, RequestBody } from '@bo/client';
import type { EventEnvelope } from '@bo/contracts';
import { AmqpBus, createDb, createLogger, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { newProducts } from '../support/catalog';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

/** Organization 1 as user 7. */
const as7 = { org_id: '1', userid: '7' } as const;

/**
 * Issue 11, "documents meet the catalog", through the gateway over PostgreSQL and RabbitMQ: lines
 * name real products, validated invoices move stock exactly once, credit exposure counts what
 * converted quotations commit, and a recurring contract bills each period once. Calls go through the
 * typed client.
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
    customer = (await sys.client.partners.partner.create({ ...as7, partnername: 'Buyer', partner_type: 'customer' })).partner.id;
    vendor = (await sys.client.partners.partner.create({ ...as7, partnername: 'Supplier', partner_type: 'vendor' })).partner.id;
    northLoc = (await sys.client.catalog.warehouse.create({ ...as7, name: 'North' })).location.location_id;
    defaultLoc = (await sys.client.catalog.location.list(as7)).locations.find((l) => l.is_default)!.location_id;
  });
  afterAll(async () => {
    await bus?.close();
    await invoicingDb?.destroy();
    await sys?.stop();
  });

  type InvoiceType = RequestBody<OperationNamed<'invoicing.invoice.create'>>['invoicetype'];
  const invoicing = () => sys.client.invoicing.invoice;
  const inventoryProduct = async (name: string, stock: number) =>
    (await sys.client.catalog.product.create({ ...as7, name, type: 'inventory', stock })).product.id;
  const line = (productId: number, quantity: number, extra: { location_id?: string; price?: number } = {}) => ({
    product_id: productId,
    quantity,
    price: 10,
    tax_rate: 0,
    tax_included: false,
    ...extra,
  });
  const invoice = async (invoicetype: InvoiceType, partner: number, lines: Array<ReturnType<typeof line>>) =>
    (await invoicing().create({ ...as7, invoicetype, partner, line_items: lines })).invoice;
  const validate = (id: number) => invoicing().validate({ ...as7, id });
  const stock = async (productId: number) => {
    const details = await sys.client.catalog.stock.details({ ...as7, product_id: productId });
    return {
      total: details.current_stock,
      at: Object.fromEntries(details.stock_details.map((d) => [d.location_id, d.stock_quantity])),
      details,
    };
  };
  const validatedEvent = async (invoiceId: number): Promise<EventEnvelope> =>
    (
      await invoicingDb('outbox')
        .where({ type: 'invoicing.invoice.validated' })
        .whereRaw("(envelope->'data'->>'invoice_id')::int = ?", [invoiceId])
        .first()
    ).envelope;

  it('lowers the stock of a customer invoice at the line location, once even when the event is delivered twice', async () => {
    const widget = await inventoryProduct('Widget', 10);
    await sys.client.catalog.stock.adjust({ ...as7, product_id: widget, qty_locations: { [northLoc]: 4 } });
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
    expect(details.recent_moves.filter((m) => m.reference === sale.invoicenumber)).toEqual([
      expect.objectContaining({
        source: 'document',
        document: { type: 'invoiceout', id: sale.id, number: sale.invoicenumber },
        total_change: -4,
      }),
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
      // And a new line cannot be checked meanwhile: 503, nothing written (sent once, so the 503 is seen rather than retried).
      const refused = await refusal(
        sys
          .clientOf(1, { retry: false })
          .invoicing.invoice.create({ org_id: '1', invoicetype: 'invoiceout', partner: customer, line_items: [line(gear, 1)] }),
      );
      expect(refused).toMatchObject({ status: 503, code: 'service_unavailable' });
    } finally {
      await sys.system.startService('catalog');
    }
    await eventually(async () =>
      expect((await stock(gear)).details.stock_details).toEqual([
        expect.objectContaining({ location_id: defaultLoc, stock_quantity: -2, negative: true }),
      ]),
    );
    // Adjustments still may not go below zero.
    const adjust = await refusal(sys.client.catalog.stock.adjust({ org_id: '1', product_id: gear, qty_locations: { [defaultLoc]: -1 } }));
    expect(adjust.status).toBe(400);
  });

  it('refuses an unknown product on invoice create, add line and a recurring child with a 400 naming it, writing nothing', async () => {
    const [gone] = (await newProducts(sys, ['Retired'])) as [number];
    const [kept] = (await newProducts(sys, ['Kept'])) as [number];
    const contract = await invoicing().create({
      ...as7,
      invoicetype: 'invoiceout',
      partner: customer,
      line_items: [line(kept, 1), line(gone, 1)],
      recurring: { enabled: true, frequency: 'monthly', start_date: new Date().toISOString().slice(0, 10) },
    });
    const draft = await invoice('invoiceout', customer, [line(kept, 1)]);
    await sys.client.catalog.product.delete({ ...as7, product_id: gone });
    const count = async () => (await invoicing().list({ ...as7, page_size: 100 })).pagination.total_items;
    const before = await count();
    const created = await refusal(
      invoicing().create({ org_id: '1', invoicetype: 'invoiceout', partner: customer, line_items: [line(kept, 1), line(gone, 1)] }),
    );
    expect(created).toMatchObject({ status: 400, code: 'not_found', errors: [{ field: 'line_items.1.product_id' }] });
    const added = await refusal(invoicing().addLine({ org_id: '1', invoice_id: draft.id, ...line(999999, 1) }));
    expect(added).toMatchObject({ status: 400, code: 'not_found', errors: [{ field: 'product_id' }] });
    const child = await refusal(sys.client.invoicing.recurring.generate({ org_id: '1', id: contract.invoice.id }));
    expect(child).toMatchObject({ status: 400, code: 'not_found', errors: [{ field: 'line_items.1.product_id' }] });
    expect(await count()).toBe(before);
    expect((await invoicing().balances({ ...as7, id: draft.id, include_items: true })).invoices[0]?.line_items).toHaveLength(1);
  });

  it('bills the first period of a recurring contract once: the first child covers the period after the parent', async () => {
    const [hosting] = (await newProducts(sys, ['Hosting'])) as [number];
    const start = new Date().toISOString().slice(0, 10);
    const created = await invoicing().create({
      ...as7,
      invoicetype: 'invoiceout',
      partner: customer,
      invoicedatetime: `${start}T00:00:00`,
      line_items: [line(hosting, 1)],
      recurring: { enabled: true, frequency: 'yearly', start_date: start },
    });
    const nextYear = `${Number(start.slice(0, 4)) + 1}${start.slice(4)}`.replace(/-02-29$/, '-02-28');
    expect(created.invoice.recurring).toMatchObject({ start_date: start, next_run_date: nextYear, generated_count: 0 });
    const generated = await sys.client.invoicing.recurring.generate({ ...as7, id: created.invoice.id });
    expect(generated.child.invoicedatetime.slice(0, 10)).toBe(nextYear);
    // Two periods ahead is refused.
    expect(await refusal(sys.client.invoicing.recurring.generate({ org_id: '1', id: created.invoice.id }))).toMatchObject({
      status: 400,
      code: 'invalid_state',
    });
  });

  it('refuses a sale whose exposure passes the credit limit, naming balance, committed and total; the balance view shows exposure and the commitment', async () => {
    const partner = (
      await sys.client.partners.partner.create({ ...as7, partnername: 'Committed Co', partner_type: 'customer', credit_limit: 500 })
    ).partner.id;
    const [service] = (await newProducts(sys, ['Consulting'])) as [number];
    const today = new Date().toISOString().slice(0, 10);
    const { quotation } = await sys.client.sales.quotation.create({
      ...as7,
      partner,
      quotation_type: 'quotation',
      quotation_date: `${today}T09:00:00`,
      valid_until: today,
      line_items: [line(service, 30)],
    });
    const converted = await sys.client.sales.quotation.convert({ ...as7, quotation_id: quotation.id, invoicetype: 'invoiceout' });
    const sale = await invoice('invoiceout', partner, [line(service, 25, { price: 10.35 })]);
    const refused = await refusal(invoicing().validate({ org_id: '1', id: sale.id }));
    expect(refused).toMatchObject({
      status: 400,
      code: 'credit_limit_exceeded',
      message: expect.stringContaining(
        'balance 0.00 + committed 300.00 + this invoice 258.75 = 558.75, 58.75 above the credit limit 500.00',
      ),
    });
    await eventually(async () => {
      const view = await sys.client.partners.partner.balance({ ...as7, partner_id: partner, include_transactions: true });
      expect(view.partner).toMatchObject({ balance: 0, committed: 300, exposure: 300, credit_limit: 500, available_credit: 500 });
      expect(view.transactions).toEqual([
        expect.objectContaining({ type: 'commitment', document_number: quotation.quotation_number, amount: 300, paid: 0, due: 300 }),
      ]);
    });
    // Validating the converted invoice itself does not count it twice: 0 + 0 + 300 fits.
    await validate(converted.invoice.id);
    expect((await invoicing().validate({ ...as7, id: sale.id, override_credit_limit: true })).invoice.invoicestatus).toBe('open');
  });
});
