import { invoicing } from '@bo/contracts';
import type { testing } from '@bo/runtime';
import { body, specLine, startWithFakePartners, taxIncludedLine } from './fixtures';

/**
 * Every reply, as the handlers really give it, is what the contract says: parsing with the reply
 * schema keeps every field (zod drops fields it does not know, so an undeclared one fails) and
 * refuses a wrong type or a missing field.
 */
describe('invoicing replies match their contracts', () => {
  let svc: testing.TestService;

  beforeAll(async () => {
    ({ svc } = await startWithFakePartners([{ org: 1, id: 10, partnername: 'Acme', credit_limit: 5000, balance: 0 }], { RECURRING_INTERVAL_MS: '3600000' }));
  });
  afterAll(async () => {
    await svc?.stop();
  });

  async function conforming(op: { name: string; reply: { parse(v: unknown): unknown } }, payload: Record<string, unknown>) {
    const reply = body(await svc.call(op.name, { userid: '5', ...payload }, 1));
    expect(op.reply.parse(reply)).toEqual(reply);
    return reply;
  }

  it('for invoices from creation to payment', async () => {
    const created = await conforming(invoicing.createInvoice, {
      invoicetype: 'invoiceout', partner: 10, invoicedatetime: '2025-01-05T08:00:00', invoicedue: '2025-02-04', comments: 'c', invoicereference: 'r',
      invoiceterms: '30 days', sourceid: '', sourcenumber: '', sourcetype: '', chartofaccounts: '4100', invoicejournal: 'Sales', tradeaccount: '1210', line_items: [specLine],
    });
    const id = created.invoice.id;
    await conforming(invoicing.addInvoiceLine, { invoice_id: id, ...taxIncludedLine });
    await conforming(invoicing.validateInvoice, { validate_invoice: true, id });
    await conforming(invoicing.registerPayment, { register_payment: true, id, amount: 10, payment_date: '2025-02-01', journal: 'Bank' });
    for (const include_items of [false, true]) {
      const balances = await conforming(invoicing.invoiceBalances, { id, include_items });
      expect(balances.invoices[0].payjournals).toHaveLength(1);
      const listed = await conforming(invoicing.listInvoices, { include_items, search_key: created.invoice.invoicenumber });
      expect(listed.invoices).toHaveLength(1);
    }
    const draft = await conforming(invoicing.createInvoice, { invoicetype: 'creditout', partner: 10, invoicestatus: 'proforma' });
    await conforming(invoicing.cancelInvoice, { cancel_invoice: true, id: draft.invoice.id });
    const fromSource = { invoicetype: 'invoiceout', partner: 10, sourcetype: 'quotation', sourceid: 5, sourcenumber: 'QUO-00005', line_items: [specLine] };
    expect((await conforming(invoicing.createInvoiceFromSource, fromSource)).created).toBe(true);
    expect((await conforming(invoicing.createInvoiceFromSource, fromSource)).created).toBe(false);
  });

  it('for recurring contracts', async () => {
    const created = await conforming(invoicing.createInvoice, {
      invoicetype: 'invoiceout', partner: 10, invoicedatetime: '2400-01-31T00:00:00', line_items: [specLine],
      recurring: { enabled: true, is_parent: true, frequency: 'monthly', start_date: '2400-01-31', occurrences_count: 3, status: 'active' },
    });
    const id = created.invoice.id;
    await conforming(invoicing.pauseRecurring, { pause_recurring: true, id });
    await conforming(invoicing.resumeRecurring, { resume_recurring: true, id });
    const generated = await conforming(invoicing.generateChildInvoice, { generate_child_invoice: true, id });
    expect(generated.child.recurring.parent_id).toBe(id);
    const cancelled = await conforming(invoicing.cancelRecurring, { cancel_recurring: true, id, cancellation_reason: 'ended' });
    expect(cancelled.invoice.recurring.status).toBe('cancelled');
  });
});
