import { eventually, startTestSystem, type TestSystem } from '../support/system';

/**
 * The bookkeeper's partner rules: documents name a partner of the right role, and a partner still
 * tied to money, open documents or active contracts cannot be deleted.
 */
describe('partner rules through the gateway', () => {
  let sys: TestSystem;
  let productId: number;
  let line: Record<string, unknown>;
  beforeAll(async () => {
    sys = await startTestSystem();
    const product = await sys.post('/inventory/editproduct', { org_id: '1', userid: 'u1', name: 'Consulting hour', type: 'service', price: 100 });
    expect(product.statusCode).toBe(200);
    productId = product.body.product.id;
    line = { product_id: productId, quantity: 1, price: 100, tax_rate: 0, tax_included: false };
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const partner = async (partner_type: string, partnername = `${partner_type} ${Math.random().toString(36).slice(2, 8)}`) => {
    const r = await sys.post('/crm/editpatner', { org_id: '1', userid: 'u1', action: 'create', partnername, partner_type });
    expect(r.statusCode).toBe(200);
    return r.body.partner as { id: number; partnername: string };
  };
  const invoice = (partnerId: number, invoicetype: string, extra: Record<string, unknown> = {}) =>
    sys.post('/invoicing/invoice/new', { org_id: '1', userid: 'u1', invoicetype, partner: partnerId, line_items: [line], ...extra });
  const quotation = (partnerId: number, quotation_type = 'quotation') =>
    sys.post('/sales/addline', {
      org_id: '1', userid: 'u1', action: 'create_quotation', partner: partnerId, quotation_type, quotation_date: '2026-01-05T10:00:00', valid_until: '2999-12-31', line_items: [line],
    });
  const counts = async () => ({
    invoices: (await sys.post('/invoicing/listinvoices', { org_id: '1', page_size: 1 })).body.pagination.total_items,
    quotations: (await sys.post('/sales/orderdetail', { org_id: '1', page_size: 1 })).body.pagination.total_items,
  });
  const remove = (partnerId: number) => sys.post('/crm/editpatner', { org_id: '1', userid: 'u1', action: 'delete', partner_id: partnerId });

  describe('roles on documents', () => {
    it('lets customers and both partners on quotations, customer invoices and customer credit notes; refuses vendors, naming the field and type', async () => {
      const customer = await partner('customer');
      const both = await partner('both');
      const vendor = await partner('vendor');
      for (const p of [customer, both]) {
        for (const type of ['quotation', 'proforma', 'estimate']) expect((await quotation(p.id, type)).statusCode).toBe(200);
        for (const type of ['invoiceout', 'creditout']) expect((await invoice(p.id, type)).statusCode).toBe(200);
      }
      const before = await counts();
      for (const type of ['quotation', 'proforma', 'estimate']) {
        const r = await quotation(vendor.id, type);
        expect(r).toMatchObject({ statusCode: 400, body: { code: 'validation_failed', errors: [{ field: 'partner' }] } });
        expect(r.body.message).toMatch(new RegExp(`partner ${vendor.id} is a vendor; an? .* needs a customer or both partner`));
      }
      for (const type of ['invoiceout', 'creditout']) {
        const r = await invoice(vendor.id, type);
        expect(r).toMatchObject({ statusCode: 400, body: { code: 'validation_failed', errors: [{ field: 'partner' }] } });
        expect(r.body.message).toContain(`partner ${vendor.id} is a vendor`);
        expect(r.body.message).toContain(`(${type}) needs a customer or both partner`);
      }
      expect(await counts()).toEqual(before);
    });

    it('lets vendors and both partners on vendor bills and vendor credit notes; refuses customers', async () => {
      const vendor = await partner('vendor');
      const both = await partner('both');
      const customer = await partner('customer');
      for (const p of [vendor, both]) for (const type of ['invoicein', 'creditin']) expect((await invoice(p.id, type)).statusCode).toBe(200);
      const before = await counts();
      for (const type of ['invoicein', 'creditin']) {
        const r = await invoice(customer.id, type);
        expect(r).toMatchObject({ statusCode: 400, body: { code: 'validation_failed', errors: [{ field: 'partner' }] } });
        expect(r.body.message).toContain(`partner ${customer.id} is a customer; a vendor`);
        expect(r.body.message).toContain(`(${type}) needs a vendor or both partner`);
      }
      expect(await counts()).toEqual(before);
    });

    it('follows a change of type: a customer turned vendor takes bills once sales and invoicing have seen the edit', async () => {
      const p = await partner('customer');
      expect((await invoice(p.id, 'invoiceout')).statusCode).toBe(200);
      expect((await quotation(p.id)).statusCode).toBe(200);
      expect((await sys.post('/crm/editpatner', { org_id: '1', action: 'edit', partner_id: p.id, partner_type: 'vendor' })).statusCode).toBe(200);
      await eventually(async () => expect((await invoice(p.id, 'invoiceout')).statusCode).toBe(400));
      await eventually(async () => expect((await quotation(p.id)).statusCode).toBe(400));
      expect((await invoice(p.id, 'invoicein')).statusCode).toBe(200);
    });

    it('refuses converting a quotation into a vendor bill for a customer', async () => {
      const customer = await partner('customer');
      const q = (await quotation(customer.id)).body.quotation;
      const r = await sys.post('/sales/addline', { org_id: '1', userid: 'u1', action: 'convert_to_invoice', quotation_id: q.id, invoicetype: 'invoicein' });
      expect(r.statusCode).toBe(400);
      expect(r.body.message).toContain(`partner ${customer.id} is a customer`);
      const listed = (await sys.post('/sales/orderdetail', { org_id: '1', page_size: 100 })).body.quotations.find((x: { id: number }) => x.id === q.id);
      expect(listed.quotation_status).toBe('draft');
    });
  });

  describe('deleting a partner', () => {
    it('is refused with a draft invoice, naming it, and allowed once it is cancelled', async () => {
      const p = await partner('customer');
      const draft = (await invoice(p.id, 'invoiceout')).body.invoice;
      const refused = await remove(p.id);
      expect(refused).toMatchObject({ statusCode: 400, body: { code: 'validation_failed', errors: [{ field: 'partner_id' }] } });
      expect(refused.body.message).toBe(`Partner ${p.id} cannot be deleted: it has 1 open document: ${draft.invoicenumber} (draft)`);
      expect((await sys.post('/crm/partners', { org_id: '1', partner_id: p.id })).statusCode).toBe(200);
      expect((await sys.post('/invoicing/invoice/new', { org_id: '1', cancel_invoice: true, id: draft.id })).statusCode).toBe(200);
      expect((await remove(p.id)).statusCode).toBe(200);
      expect((await sys.post('/crm/partners', { org_id: '1', partner_id: p.id })).body.code).toBe('not_found');
    });

    it('is refused with an open quotation, and allowed once it is cancelled', async () => {
      const p = await partner('customer');
      const q = (await quotation(p.id)).body.quotation;
      const refused = await remove(p.id);
      expect(refused.statusCode).toBe(400);
      expect(refused.body.message).toBe(`Partner ${p.id} cannot be deleted: it has 1 open document: ${q.quotation_number} (draft)`);
      expect((await sys.post('/sales/addline', { org_id: '1', action: 'cancel_quotation', quotation_id: q.id })).statusCode).toBe(200);
      expect((await remove(p.id)).statusCode).toBe(200);
    });

    it('is refused while the partner owes money (a validated, unpaid invoice), naming the balance, and allowed once paid', async () => {
      const p = await partner('customer');
      const inv = (await invoice(p.id, 'invoiceout', { invoicedatetime: '2026-01-05T10:00:00' })).body.invoice;
      expect((await sys.post('/invoicing/invoice/new', { org_id: '1', validate_invoice: true, id: inv.id })).statusCode).toBe(200);
      await eventually(async () => expect((await sys.post('/crm/partners', { org_id: '1', partner_id: p.id })).body.partner.balance).toBe(100));
      const refused = await remove(p.id);
      expect(refused.statusCode).toBe(400);
      expect(refused.body.message).toBe(`Partner ${p.id} cannot be deleted: its balance is 100.00, not zero; it has 1 open document: ${inv.invoicenumber} (open)`);
      expect((await sys.post('/invoicing/invoice/new', { org_id: '1', register_payment: true, id: inv.id, amount: 100, payment_date: '2026-01-06' })).statusCode).toBe(200);
      await eventually(async () => expect((await sys.post('/crm/partners', { org_id: '1', partner_id: p.id })).body.partner.balance).toBe(0));
      expect((await remove(p.id)).statusCode).toBe(200);
    });

    it('is refused while a recurring contract is active, and allowed once it is cancelled', async () => {
      const p = await partner('customer');
      const contract = (await invoice(p.id, 'invoiceout', { recurring: { enabled: true, frequency: 'yearly', start_date: '2999-01-01' } })).body.invoice;
      expect((await sys.post('/invoicing/invoice/new', { org_id: '1', validate_invoice: true, id: contract.id, override_credit_limit: true })).statusCode).toBe(200);
      expect((await sys.post('/invoicing/invoice/new', { org_id: '1', register_payment: true, id: contract.id, amount: 100 })).statusCode).toBe(200);
      await eventually(async () => expect((await sys.post('/crm/partners', { org_id: '1', partner_id: p.id, include_transactions: true })).body.transactions).toHaveLength(2));
      const refused = await remove(p.id);
      expect(refused.statusCode).toBe(400);
      expect(refused.body.message).toBe(`Partner ${p.id} cannot be deleted: it has 1 active recurring contract: ${contract.invoicenumber} (active)`);
      expect((await sys.post('/invoicing/invoice/new', { org_id: '1', cancel_recurring: true, id: contract.id })).statusCode).toBe(200);
      expect((await remove(p.id)).statusCode).toBe(200);
    });
  });
});
