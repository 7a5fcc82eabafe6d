import type { OperationNamed, RequestBody } from '@bo/client';
import { refusal, startTestSystem, type TestSystem } from '../support/system';

type QuotedLine = NonNullable<RequestBody<OperationNamed<'sales.quotation.create'>>['line_items']>[number];

const today = new Date().toISOString().slice(0, 10);
const later = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

/**
 * A quotation's conversion meets the catalog as it is now: the invoice shows exactly what the
 * customer accepted (the quotation's snapshot, whatever the catalog says since), and a product gone
 * from the catalog is a 400 naming the line, leaving the quotation as it was and making no invoice.
 */
describe('conversion and the catalog', () => {
  let sys: TestSystem;
  let partner: string;
  beforeAll(async () => {
    sys = await startTestSystem();
    partner = String(
      (await sys.client.partners.partner.create({ org_id: '1', userid: 'u1', partnername: 'Quoted Buyer', partner_type: 'customer' }))
        .partner.id,
    );
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const product = async (name: string, sku: string) =>
    (
      await sys.client.catalog.product.create({
        org_id: '1',
        userid: 'u1',
        name,
        sku,
        uom: 'box',
        description: `${name} as sold`,
        price: 12,
        type: 'service',
      })
    ).product.id;
  const quote = async (lines: Array<Pick<QuotedLine, 'product_id'> & Partial<QuotedLine>>) =>
    (
      await sys.client.sales.quotation.create({
        org_id: '1',
        userid: 'u1',
        partner,
        quotation_type: 'quotation',
        quotation_status: 'draft',
        quotation_date: `${today}T10:00:00`,
        valid_until: later,
        line_items: lines.map((l) => ({ quantity: 2, tax_rate: 0, tax_included: false, ...l })),
      })
    ).quotation;
  const convert = (quotationId: number) =>
    sys.client.sales.quotation.convert({ org_id: '1', userid: 'u1', quotation_id: quotationId, invoicetype: 'invoiceout' });
  const invoiceCount = async () => (await sys.client.invoicing.invoice.list({ org_id: '1', page_size: 100 })).pagination.total_items;

  it('keeps the quoted snapshot on the invoice after the product was renamed and given another SKU', async () => {
    const id = await product('Gadget', 'GAD-1');
    const q = await quote([{ product_id: id }, { product_id: id, product_name: 'Gadget, gift wrapped', description: 'Wrapped in red' }]);
    expect(q.line_items.map((l) => [l.product_name, l.sku, l.uom, l.description, l.price])).toEqual([
      ['Gadget', 'GAD-1', 'box', 'Gadget as sold', 12],
      ['Gadget, gift wrapped', 'GAD-1', 'box', 'Wrapped in red', 12],
    ]);
    await sys.client.catalog.product.edit({
      org_id: '1',
      userid: 'u1',
      product_id: id,
      name: 'Gadget Pro',
      sku: 'GAD-2',
      uom: 'piece',
      description: 'Another text',
      price: 20,
    });

    const { invoice } = await convert(q.id);
    const [stored] = (await sys.client.invoicing.invoice.balances({ org_id: '1', id: invoice.id, include_items: true })).invoices;
    expect(stored?.line_items?.map((l) => [l.product_id, l.product_name, l.sku, l.uom, l.description, l.price])).toEqual(
      q.line_items.map((l) => [l.product_id, l.product_name, l.sku, l.uom, l.description, l.price]),
    );
  });

  it('refuses to convert a quotation whose product was deleted, naming the line; the quotation stays editable and no invoice exists', async () => {
    const kept = await product('Kept', 'KEPT-1');
    const gone = await product('Gone', 'GONE-1');
    const q = await quote([{ product_id: kept }, { product_id: gone }]);
    await sys.client.catalog.product.delete({ org_id: '1', userid: 'u1', product_id: gone, delete: true });
    const before = await invoiceCount();

    expect(await refusal(convert(q.id))).toMatchObject({ status: 400, code: 'not_found', errors: [{ field: 'line_items.1.product_id' }] });
    expect(await invoiceCount()).toBe(before);
    // Not frozen by an unfinished conversion: it takes changes, and converts once the line is fixed.
    const { quotation } = await sys.client.sales.quotation.get({ org_id: '1', quotation_id: q.id });
    expect(quotation).toMatchObject({ quotation_status: 'draft', invoice_id: null });
    await sys.client.sales.quotation.edit({
      org_id: '1',
      userid: 'u1',
      action: 'edit_quotation',
      quotation_id: q.id,
      comments: 'Gone product replaced',
    });
    await sys.client.sales.quotation.addLine({
      org_id: '1',
      userid: 'u1',
      action: 'add_line',
      quotation_id: q.id,
      product_id: kept,
      quantity: 1,
      tax_rate: 0,
      tax_included: false,
    });
    expect((await sys.client.sales.quotation.get({ org_id: '1', quotation_id: q.id })).quotation).toMatchObject({
      comments: 'Gone product replaced',
      line_items: [{}, {}, {}],
    });
  });
});
