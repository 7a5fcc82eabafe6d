import type { Client, OperationNamed, RequestBody } from '@bo/client';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

type InvoiceBody = RequestBody<OperationNamed<'invoicing.invoice.create'>>;
type PartnerType = RequestBody<OperationNamed<'partners.partner.create'>>['partner_type'];
type QuotationType = RequestBody<OperationNamed<'sales.quotation.create'>>['quotation_type'];

/**
 * The bookkeeper's partner rules: documents name a partner of the right role, and a partner still
 * tied to money, open documents or active contracts cannot be deleted.
 */
describe('partner rules through the gateway', () => {
  let sys: TestSystem;
  let api: Client;
  let line: { product_id: number; quantity: number; price: number; tax_rate: number; tax_included: boolean };
  beforeAll(async () => {
    sys = await startTestSystem();
    api = sys.client;
    const product = await api.catalog.product.create({ org_id: '1', userid: 'u1', name: 'Consulting hour', type: 'service', price: 100 });
    line = { product_id: product.product.id, quantity: 1, price: 100, tax_rate: 0, tax_included: false };
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const partner = async (partner_type: PartnerType, partnername = `${partner_type} ${Math.random().toString(36).slice(2, 8)}`) =>
    (await api.partners.partner.create({ org_id: '1', userid: 'u1', partnername, partner_type })).partner;
  const invoice = async (partnerId: number, invoicetype: InvoiceBody['invoicetype'], extra: Partial<InvoiceBody> = {}) =>
    (await api.invoicing.invoice.create({ org_id: '1', userid: 'u1', invoicetype, partner: partnerId, line_items: [line], ...extra }))
      .invoice;
  const quotation = async (partnerId: number, quotation_type: QuotationType = 'quotation') =>
    (
      await api.sales.quotation.create({
        org_id: '1',
        userid: 'u1',
        partner: partnerId,
        quotation_type,
        quotation_date: '2026-01-05T10:00:00',
        valid_until: '2999-12-31',
        line_items: [line],
      })
    ).quotation;
  const counts = async () => ({
    invoices: (await api.invoicing.invoice.list({ org_id: '1', page_size: 1 })).pagination.total_items,
    quotations: (await api.sales.quotation.list({ org_id: '1', page_size: 1 })).pagination.total_items,
  });
  const remove = (partnerId: number) => api.partners.partner.delete({ org_id: '1', userid: 'u1', partner_id: partnerId });
  const balance = (partnerId: number) => api.partners.partner.balance({ org_id: '1', partner_id: partnerId });

  describe('roles on documents', () => {
    it('lets customers and both partners on quotations, customer invoices and customer credit notes; refuses vendors, naming the field and type', async () => {
      const customer = await partner('customer');
      const both = await partner('both');
      const vendor = await partner('vendor');
      for (const p of [customer, both]) {
        for (const type of ['quotation', 'proforma', 'estimate'] as const)
          expect(await quotation(p.id, type)).toMatchObject({ partner: String(p.id), quotation_type: type });
        for (const type of ['invoiceout', 'creditout'] as const)
          expect(await invoice(p.id, type)).toMatchObject({ partner: String(p.id), invoicetype: type });
      }
      const before = await counts();
      for (const type of ['quotation', 'proforma', 'estimate'] as const) {
        const r = await refusal(quotation(vendor.id, type));
        expect(r).toMatchObject({ status: 400, code: 'validation_failed', errors: [{ field: 'partner' }] });
        expect(r.message).toMatch(new RegExp(`partner ${vendor.id} is a vendor; an? .* needs a customer or both partner`));
      }
      for (const type of ['invoiceout', 'creditout'] as const) {
        const r = await refusal(invoice(vendor.id, type));
        expect(r).toMatchObject({ status: 400, code: 'validation_failed', errors: [{ field: 'partner' }] });
        expect(r.message).toContain(`partner ${vendor.id} is a vendor`);
        expect(r.message).toContain(`(${type}) needs a customer or both partner`);
      }
      expect(await counts()).toEqual(before);
    });

    it('lets vendors and both partners on vendor bills and vendor credit notes; refuses customers', async () => {
      const vendor = await partner('vendor');
      const both = await partner('both');
      const customer = await partner('customer');
      for (const p of [vendor, both])
        for (const type of ['invoicein', 'creditin'] as const)
          expect(await invoice(p.id, type)).toMatchObject({ partner: String(p.id), invoicetype: type });
      const before = await counts();
      for (const type of ['invoicein', 'creditin'] as const) {
        const r = await refusal(invoice(customer.id, type));
        expect(r).toMatchObject({ status: 400, code: 'validation_failed', errors: [{ field: 'partner' }] });
        expect(r.message).toContain(`partner ${customer.id} is a customer; a vendor`);
        expect(r.message).toContain(`(${type}) needs a vendor or both partner`);
      }
      expect(await counts()).toEqual(before);
    });

    it('follows a change of type: a customer turned vendor takes bills once sales and invoicing have seen the edit', async () => {
      const p = await partner('customer');
      expect(await invoice(p.id, 'invoiceout')).toMatchObject({ partner: String(p.id) });
      expect(await quotation(p.id)).toMatchObject({ partner: String(p.id) });
      expect((await api.partners.partner.edit({ org_id: '1', partner_id: p.id, partner_type: 'vendor' })).partner.partner_type).toBe(
        'vendor',
      );
      await eventually(async () => expect(await refusal(invoice(p.id, 'invoiceout'))).toMatchObject({ status: 400 }));
      await eventually(async () => expect(await refusal(quotation(p.id))).toMatchObject({ status: 400 }));
      expect(await invoice(p.id, 'invoicein')).toMatchObject({ partner: String(p.id), invoicetype: 'invoicein' });
    });

    it('refuses converting a quotation into a vendor bill for a customer', async () => {
      const customer = await partner('customer');
      const q = await quotation(customer.id);
      const r = await refusal(api.sales.quotation.convert({ org_id: '1', userid: 'u1', quotation_id: q.id, invoicetype: 'invoicein' }));
      expect(r.status).toBe(400);
      expect(r.message).toContain(`partner ${customer.id} is a customer`);
      const listed = (await api.sales.quotation.list({ org_id: '1', page_size: 100 })).quotations.find((x) => x.id === q.id);
      expect(listed?.quotation_status).toBe('draft');
    });
  });

  describe('deleting a partner', () => {
    it('is refused with a draft invoice, naming it, and allowed once it is cancelled', async () => {
      const p = await partner('customer');
      const draft = await invoice(p.id, 'invoiceout');
      const refused = await refusal(remove(p.id));
      expect(refused).toMatchObject({ status: 400, code: 'validation_failed', errors: [{ field: 'partner_id' }] });
      expect(refused.message).toBe(`Partner ${p.id} cannot be deleted: it has 1 open document: ${draft.invoicenumber} (draft)`);
      expect((await balance(p.id)).partner.id).toBe(p.id);
      await api.invoicing.invoice.cancel({ org_id: '1', id: draft.id });
      await remove(p.id);
      expect(await refusal(balance(p.id))).toMatchObject({ code: 'not_found' });
    });

    it('is refused with an open quotation, and allowed once it is cancelled', async () => {
      const p = await partner('customer');
      const q = await quotation(p.id);
      const refused = await refusal(remove(p.id));
      expect(refused.status).toBe(400);
      expect(refused.message).toBe(`Partner ${p.id} cannot be deleted: it has 1 open document: ${q.quotation_number} (draft)`);
      await api.sales.quotation.cancel({ org_id: '1', quotation_id: q.id });
      await remove(p.id);
    });

    it('is refused while the partner owes money (a validated, unpaid invoice), naming the balance, and allowed once paid', async () => {
      const p = await partner('customer');
      const inv = await invoice(p.id, 'invoiceout', { invoicedatetime: '2026-01-05T10:00:00' });
      await api.invoicing.invoice.validate({ org_id: '1', id: inv.id });
      await eventually(async () => expect((await balance(p.id)).partner.balance).toBe(100));
      const refused = await refusal(remove(p.id));
      expect(refused.status).toBe(400);
      expect(refused.message).toBe(
        `Partner ${p.id} cannot be deleted: its balance is 100.00, not zero; it has 1 open document: ${inv.invoicenumber} (open)`,
      );
      await api.invoicing.invoice.registerPayment({ org_id: '1', id: inv.id, amount: 100, payment_date: '2026-01-06' });
      await eventually(async () => expect((await balance(p.id)).partner.balance).toBe(0));
      await remove(p.id);
    });

    it('is refused while a recurring contract is active, and allowed once it is cancelled', async () => {
      const p = await partner('customer');
      const contract = await invoice(p.id, 'invoiceout', { recurring: { enabled: true, frequency: 'yearly', start_date: '2999-01-01' } });
      await api.invoicing.invoice.validate({ org_id: '1', id: contract.id, override_credit_limit: true });
      await api.invoicing.invoice.registerPayment({ org_id: '1', id: contract.id, amount: 100 });
      await eventually(async () =>
        expect(
          (await api.partners.partner.balance({ org_id: '1', partner_id: p.id, include_transactions: true })).transactions,
        ).toHaveLength(2),
      );
      const refused = await refusal(remove(p.id));
      expect(refused.status).toBe(400);
      expect(refused.message).toBe(
        `Partner ${p.id} cannot be deleted: it has 1 active recurring contract: ${contract.invoicenumber} (active)`,
      );
      await api.invoicing.recurring.cancel({ org_id: '1', id: contract.id });
      await remove(p.id);
    });
  });
});
