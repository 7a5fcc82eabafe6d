import type { OperationNamed, RequestBody } from '@bo/client';
import { newProducts } from '../support/catalog';
import { pdfText } from '../support/pdf';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

/** Organization 1 as user 7. */
const as7 = { org_id: '1', userid: '7' } as const;

type CreateInvoice = RequestBody<OperationNamed<'invoicing.invoice.create'>>;

/**
 * Document links through the gateway over PostgreSQL and RabbitMQ: a conversion link is made by
 * sales' conversion alone, a credit note's link to its invoice is checked, credit notes credit an
 * invoice in part and never beyond its total, and `restock: false` moves no stock.
 */
describe('document links are made by the server; partial credit notes', () => {
  let sys: TestSystem;
  let alpha: number;
  let beta: number;
  let vendor: number;
  let service: number;

  beforeAll(async () => {
    sys = await startTestSystem();
    const partner = async (partnername: string, partner_type: 'customer' | 'vendor') =>
      (await sys.client.partners.partner.create({ ...as7, partnername, partner_type })).partner.id;
    alpha = await partner('Alpha', 'customer');
    beta = await partner('Beta', 'customer');
    vendor = await partner('Vendor', 'vendor');
    [service] = (await newProducts(sys, ['Consulting'])) as [number];
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const invoicing = () => sys.client.invoicing.invoice;
  /** One line of exactly `amount`, no tax. */
  const amount = (price: number, product = service) => [{ product_id: product, quantity: 1, price, tax_rate: 0, tax_included: false }];
  const create = async (fields: Omit<CreateInvoice, 'org_id'>) => (await invoicing().create({ ...as7, ...fields })).invoice;
  const issued = async (fields: Omit<CreateInvoice, 'org_id'>) => {
    const inv = await create(fields);
    await invoicing().validate({ ...as7, id: inv.id });
    return inv;
  };
  const creditOf = (
    invoice: { id: number },
    fields: Omit<CreateInvoice, 'org_id' | 'invoicetype'> & { invoicetype?: 'creditout' | 'creditin' },
  ) => invoicing().create({ ...as7, invoicetype: 'creditout', sourcetype: 'invoice', sourceid: String(invoice.id), ...fields });
  /** Every invoice of the organization with its status and amounts: a refusal must leave it as it was. */
  const everything = async () =>
    (await invoicing().list({ ...as7, page_size: 100 })).invoices.map((i) => [i.id, i.invoicestatus, i.invoicetotal, i.due_amount]);
  const balance = async (partner_id: number) => (await sys.client.partners.partner.balance({ ...as7, partner_id })).partner;

  it("a client's `sourcetype: quotation` on another partner's invoice links nothing: converting the quotation makes its own partner's invoice", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const { quotation } = await sys.client.sales.quotation.create({
      ...as7,
      partner: alpha,
      quotation_type: 'quotation',
      quotation_date: `${today}T09:00:00`,
      valid_until: today,
      line_items: amount(300),
    });
    // The hostile claim: Beta's invoice says it is quotation's conversion.
    const claimed = await create({
      invoicetype: 'invoiceout',
      partner: beta,
      sourcetype: 'quotation',
      sourceid: String(quotation.id),
      sourcenumber: quotation.quotation_number,
      line_items: amount(5),
    });
    expect(claimed).toMatchObject({ sourcetype: 'quotation', sourceid: String(quotation.id), partner: String(beta) });

    const converted = await sys.client.sales.quotation.convert({ ...as7, quotation_id: quotation.id, invoicetype: 'invoiceout' });
    expect(converted.invoice.id).not.toBe(claimed.id);
    expect(converted.invoice).toMatchObject({ partner: String(alpha), invoicetotal: 300 });
    // Beta's invoice is still Beta's draft of 5; Alpha carries the commitment, Beta none.
    const betaDraft = (await invoicing().balances({ ...as7, id: claimed.id })).invoices[0];
    expect(betaDraft).toMatchObject({ invoicestatus: 'draft', invoicetotal: 5 });
    await eventually(async () => {
      expect((await balance(alpha)).committed).toBe(300);
      expect((await balance(beta)).committed).toBe(0);
    });
    // Converting again answers the same conversion, never Beta's invoice.
    const again = await refusal(sys.client.sales.quotation.convert({ ...as7, quotation_id: quotation.id, invoicetype: 'invoiceout' }));
    expect(again).toMatchObject({ status: 400, code: 'invalid_state' });
  });

  it('refuses a credit note of an invoice it cannot credit with a 400 on sourceid, changing nothing', async () => {
    const sale = await issued({ invoicetype: 'invoiceout', partner: alpha, line_items: amount(100) });
    const draft = await create({ invoicetype: 'invoiceout', partner: alpha, line_items: amount(100) });
    const bill = await issued({ invoicetype: 'invoicein', partner: vendor, line_items: amount(80) });
    const betaSale = await issued({ invoicetype: 'invoiceout', partner: beta, line_items: amount(60) });
    // A partner that is both customer and vendor, so that only the pairing of types can refuse.
    const both = (await sys.client.partners.partner.create({ ...as7, partnername: 'Both Ltd', partner_type: 'both' })).partner.id;
    const bothSale = await issued({ invoicetype: 'invoiceout', partner: both, line_items: amount(90) });
    const bothBill = await issued({ invoicetype: 'invoicein', partner: both, line_items: amount(90) });
    const org2Partner = (await sys.clientOf(2).partners.partner.create({ org_id: '2', partnername: 'Other org', partner_type: 'customer' }))
      .partner.id;
    const [org2Product] = (await newProducts(sys, ['Org 2 service'], { org: 2 })) as [number];
    const org2Sale = (
      await sys
        .clientOf(2)
        .invoicing.invoice.create({ org_id: '2', invoicetype: 'invoiceout', partner: org2Partner, line_items: amount(70, org2Product) })
    ).invoice;
    await sys.clientOf(2).invoicing.invoice.validate({ org_id: '2', id: org2Sale.id });

    const before = await everything();
    const cases = [
      { what: "another organization's invoice", call: creditOf(org2Sale, { partner: alpha, line_items: amount(1) }), code: 'not_found' },
      { what: "another partner's invoice", call: creditOf(betaSale, { partner: alpha, line_items: amount(1) }), code: 'validation_failed' },
      { what: 'a draft', call: creditOf(draft, { partner: alpha, line_items: amount(1) }), code: 'invalid_state' },
      {
        what: 'a creditout of a vendor bill',
        call: creditOf(bothBill, { partner: both, line_items: amount(1) }),
        code: 'validation_failed',
      },
      {
        what: 'a creditin of a sale',
        call: creditOf(bothSale, { invoicetype: 'creditin', partner: both, line_items: amount(1) }),
        code: 'validation_failed',
      },
    ];
    for (const c of cases) {
      const refused = await refusal(c.call);
      expect({ what: c.what, status: refused.status, code: refused.code, field: refused.errors?.[0]?.field }).toEqual({
        what: c.what,
        status: 400,
        code: c.code,
        field: 'sourceid',
      });
    }
    expect(await everything()).toEqual(before);

    // The paired ones are kept, and the credit note's PDF names the invoice it credits (BT-25).
    const note = (await creditOf(sale, { partner: alpha, line_items: amount(10) })).invoice;
    const vendorNote = (await creditOf(bill, { invoicetype: 'creditin', partner: vendor, line_items: amount(10) })).invoice;
    const pdfOf = async (id: number) =>
      pdfText(Buffer.from((await invoicing().render({ ...as7, id, format: 'pdf' })).content_base64, 'base64'));
    expect(await pdfOf(note.id)).toContain(`Credits invoice ${sale.invoicenumber}`);
    expect(await pdfOf(vendorNote.id)).toContain(`Credits invoice ${bill.invoicenumber}`);
    // A credit note whose source is free text credits nothing and names no invoice.
    const free = await create({
      invoicetype: 'creditout',
      partner: alpha,
      sourcetype: 'quotation',
      sourceid: String(sale.id),
      line_items: amount(1),
    });
    expect(await pdfOf(free.id)).not.toContain('Credits invoice');
  });

  it('credits one invoice with several credit notes up to its total; the refusal names what is left and changes nothing', async () => {
    const gamma = (await sys.client.partners.partner.create({ ...as7, partnername: 'Gamma', partner_type: 'customer' })).partner.id;
    const sale = await issued({ invoicetype: 'invoiceout', partner: gamma, line_items: amount(100) });
    const first = (await creditOf(sale, { partner: gamma, line_items: amount(30) })).invoice;
    const second = (await creditOf(sale, { partner: gamma, line_items: amount(45.5) })).invoice;
    const tooMuch = (await creditOf(sale, { partner: gamma, line_items: amount(24.51) })).invoice;
    const rest = (await creditOf(sale, { partner: gamma, line_items: amount(24.5) })).invoice;
    await invoicing().validate({ ...as7, id: first.id });
    await invoicing().validate({ ...as7, id: second.id });
    await eventually(async () => expect((await balance(gamma)).balance).toBe(24.5));
    const before = await everything();
    const balanceBefore = await balance(gamma);

    const refused = await refusal(invoicing().validate({ ...as7, id: tooMuch.id }));
    expect(refused).toMatchObject({
      status: 400,
      code: 'credit_exceeds_invoice',
      message: expect.stringContaining('75.50 is credited already, 24.50 is still creditable'),
      errors: [{ field: 'invoicetotal' }],
    });
    expect(await everything()).toEqual(before);
    expect(await balance(gamma)).toEqual(balanceBefore);

    // Up to the cent is fine, and it settles the invoice's last 24.50 (a credit note settles its
    // invoice first); after that nothing is left.
    expect((await invoicing().validate({ ...as7, id: rest.id })).invoice).toMatchObject({ invoicestatus: 'paid', due_amount: 0 });
    expect((await invoicing().balances({ ...as7, id: sale.id })).invoices[0]).toMatchObject({ invoicestatus: 'paid', due_amount: 0 });
    expect(await refusal(invoicing().validate({ ...as7, id: tooMuch.id }))).toMatchObject({
      code: 'credit_exceeds_invoice',
      message: expect.stringContaining('0.00 is still creditable'),
    });
    await eventually(async () => expect((await balance(gamma)).balance).toBe(0));
  });

  it('moves no stock for a credit note made with restock: false; one that restocks returns its goods', async () => {
    const widget = (await sys.client.catalog.product.create({ ...as7, name: 'Widget', type: 'inventory', stock: 10 })).product.id;
    const stock = async () => (await sys.client.catalog.stock.details({ ...as7, product_id: widget })).current_stock;
    const line = [{ product_id: widget, quantity: 4, price: 10, tax_rate: 0, tax_included: false }];
    const sale = await issued({ invoicetype: 'invoiceout', partner: alpha, line_items: line });
    await eventually(async () => expect(await stock()).toBe(6));

    const rebate = (await creditOf(sale, { partner: alpha, line_items: [{ ...line[0]!, quantity: 1 }], restock: false })).invoice;
    expect(rebate.restock).toBe(false);
    await invoicing().validate({ ...as7, id: rebate.id });
    const returned = (await creditOf(sale, { partner: alpha, line_items: [{ ...line[0]!, quantity: 2 }] })).invoice;
    expect(returned.restock).toBe(true);
    await invoicing().validate({ ...as7, id: returned.id });
    // The return arrives after the rebate's event (one queue, in order): 6 + 2, nothing from the rebate.
    await eventually(async () => expect(await stock()).toBe(8));
    const moves = (await sys.client.catalog.stock.details({ ...as7, product_id: widget })).recent_moves;
    expect(moves.map((m) => m.reference)).not.toContain(rebate.invoicenumber);
    expect(moves.filter((m) => m.reference === returned.invoicenumber).map((m) => m.total_change)).toEqual([2]);

    // Only a credit note may keep its goods: on an invoice it is a 400 naming restock, nothing made.
    const before = await everything();
    const refused = await refusal(
      invoicing().create({ ...as7, invoicetype: 'invoiceout', partner: alpha, line_items: line, restock: false }),
    );
    expect(refused).toMatchObject({ status: 400, code: 'validation_failed', errors: [{ field: 'restock' }] });
    expect(await everything()).toEqual(before);
  });
});
