import { newProducts } from '../support/catalog';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

const today = new Date().toISOString().slice(0, 10);
const later = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

/**
 * Credit exposure counts what the partner will owe as a customer: a `both` partner's quotations
 * converted to a credit note or to vendor documents commit nothing, in the partners ledger and in
 * invoicing's credit check alike; one converted to a customer invoice commits its total; and its
 * validated vendor credit moves its balance, not its exposure.
 */
describe('exposure counts only what the partner will owe as a customer', () => {
  let sys: TestSystem;
  let product: number;
  beforeAll(async () => {
    sys = await startTestSystem();
    [product] = (await newProducts(sys, ['Consulting'])) as [number];
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const line = (price: number) => ({ product_id: product, quantity: 1, price, tax_rate: 0, tax_included: false });
  const balance = async (partnerId: number) => (await sys.client.partners.partner.balance({ org_id: '1', partner_id: partnerId })).partner;
  const convertedQuotation = async (
    partnerId: number,
    price: number,
    invoicetype: 'invoiceout' | 'creditout' | 'invoicein' | 'creditin',
  ) => {
    const { quotation } = await sys.client.sales.quotation.create({
      org_id: '1',
      userid: 'u1',
      partner: String(partnerId),
      quotation_type: 'quotation',
      quotation_status: 'draft',
      quotation_date: `${today}T10:00:00`,
      valid_until: later,
      line_items: [line(price)],
    });
    return (await sys.client.sales.quotation.convert({ org_id: '1', userid: 'u1', quotation_id: quotation.id, invoicetype })).invoice;
  };
  const sale = async (partnerId: number, price: number) =>
    (
      await sys.client.invoicing.invoice.create({
        org_id: '1',
        userid: 'u1',
        invoicetype: 'invoiceout',
        partner: partnerId,
        line_items: [line(price)],
      })
    ).invoice;
  const invoice = async (id: number) => (await sys.client.invoicing.invoice.balances({ org_id: '1', id })).invoices[0]!;

  it("a `both` partner's credit notes and vendor documents in the making commit nothing; its customer invoice does", async () => {
    const { partner } = await sys.client.partners.partner.create({
      org_id: '1',
      userid: 'u1',
      partnername: 'Buys And Sells',
      partner_type: 'both',
      credit_limit: 1000,
    });
    // 1,200 of conversions, of which only the customer invoice (300) will be owed.
    const drafts = [
      await convertedQuotation(partner.id, 300, 'creditout'),
      await convertedQuotation(partner.id, 300, 'invoicein'),
      await convertedQuotation(partner.id, 300, 'creditin'),
      await convertedQuotation(partner.id, 300, 'invoiceout'),
    ];
    expect(drafts.map((d) => [d.invoicetype, d.invoicestatus, d.invoicetotal])).toEqual([
      ['creditout', 'draft', 300],
      ['invoicein', 'draft', 300],
      ['creditin', 'draft', 300],
      ['invoiceout', 'draft', 300],
    ]);
    await eventually(async () =>
      expect(await balance(partner.id)).toMatchObject({ balance: 0, receivable: 0, committed: 300, exposure: 300 }),
    );
    const view = await sys.client.partners.partner.balance({ org_id: '1', partner_id: partner.id, include_transactions: true });
    expect(view.transactions?.map((t) => [t.type, t.amount])).toEqual([['commitment', 300]]);

    // 0 + committed 300 + 700 reaches the limit exactly: allowed (the four conversions would have made it 1,900).
    const fits = await sale(partner.id, 700);
    await sys.client.invoicing.invoice.validate({ org_id: '1', userid: 'u1', id: fits.id });
    await eventually(async () => expect(await balance(partner.id)).toMatchObject({ balance: 700, committed: 300, exposure: 1000 }));

    // A cent more is refused, naming the customer side alone, and changes nothing.
    const over = await sale(partner.id, 0.01);
    const refused = await refusal(sys.client.invoicing.invoice.validate({ org_id: '1', userid: 'u1', id: over.id }));
    expect(refused).toMatchObject({
      status: 400,
      code: 'credit_limit_exceeded',
      message: expect.stringContaining(
        'balance 700.00 + committed 300.00 + this invoice 0.01 = 1000.01, 0.01 above the credit limit 1000.00',
      ),
    });
    expect(await invoice(over.id)).toMatchObject({ invoicestatus: 'draft', journals: [] });
    expect(await balance(partner.id)).toMatchObject({ balance: 700, committed: 300, exposure: 1000 });

    // Validating the customer invoice moves its commitment into the balance; the others never were committed.
    await sys.client.invoicing.invoice.validate({ org_id: '1', userid: 'u1', id: drafts[3]!.id, override_credit_limit: true });
    await eventually(async () =>
      expect(await balance(partner.id)).toMatchObject({ balance: 1000, receivable: 1000, committed: 0, exposure: 1000 }),
    );

    // Its vendor credit moves the balance (the organization is owed 300 more), not what it owes as a customer.
    await sys.client.invoicing.invoice.validate({ org_id: '1', userid: 'u1', id: drafts[2]!.id });
    await eventually(async () =>
      expect(await balance(partner.id)).toMatchObject({ balance: 1300, receivable: 1000, committed: 0, exposure: 1000 }),
    );
    const still = await refusal(sys.client.invoicing.invoice.validate({ org_id: '1', userid: 'u1', id: over.id }));
    expect(still.message).toContain('balance 1000.00 + committed 0.00 + this invoice 0.01 = 1000.01, 0.01 above the credit limit 1000.00');
    expect(await invoice(over.id)).toMatchObject({ invoicestatus: 'draft', journals: [] });
  });
});
