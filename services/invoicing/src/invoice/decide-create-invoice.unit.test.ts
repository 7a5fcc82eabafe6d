import { invoicing, parseWith } from '@bo/contracts';
import type { ResolvedLine } from '@bo/billing';
import { decideCreateInvoice, type CreateInvoiceRequest, type CreateInvoiceState } from './decide-create-invoice';

/** A create request as the contract's schema hands it to the handler. */
function request(body: Record<string, unknown>): CreateInvoiceRequest {
  const parsed = parseWith(invoicing.createInvoice.request, {
    org_id: 1,
    partner: 42,
    invoicetype: 'invoiceout',
    line_items: [
      { product_id: '1', product_name: 'Widget', quantity: 2, price: 49.5, tax_rate: 15, tax_included: false },
      { product_id: '3', product_name: 'Service hour', quantity: 3, price: 80, discount: 10, tax_rate: 0, tax_included: false },
    ],
    ...body,
  });
  if (!parsed.ok) throw new Error(`the example request is refused: ${JSON.stringify(parsed)}`);
  return parsed.value;
}

/** The request's lines as the catalog check completes them (resolveCatalogLines). */
function resolved(req: CreateInvoiceRequest): ResolvedLine[] {
  return (req.line_items ?? []).map((l) => ({
    ...l,
    variant_id: null,
    location_id: null,
    product_name: l.product_name ?? null,
    description: null,
    price: l.price ?? '0',
    tax_rate: l.tax_rate ?? '0',
    tax_category: null,
    sku: null,
    uom: null,
  }));
}

function given(req: CreateInvoiceRequest, state: Partial<CreateInvoiceState> = {}): CreateInvoiceState {
  return {
    lines: resolved(req),
    defaults: { currency: 'USD', rounding: 'line', cash_rounding: null, accounting_currency: 'USD', time_zone: null },
    now: { instant: new Date('2026-11-28T10:00:00Z'), date: '2026-11-28', dateTime: '2026-11-28T10:00:00' },
    partner: { id: 42, partner_type: 'customer' },
    credited: null,
    ...state,
  };
}
const ctx = { orgId: 7, userId: 'u1' };

describe('deciding a new invoice', () => {
  it('given a customer in a USD organization, when an invoice of two lines is created, then it is a USD draft of the INV- series with its taxes', () => {
    const req = request({});
    const plan = decideCreateInvoice(req, given(req), ctx);
    expect(plan.series).toBe('INV-');
    expect(plan.supplied).toBeUndefined();
    expect(plan.header).toMatchObject({
      org_id: 7,
      partner_id: 42,
      invoicetype: 'invoiceout',
      invoicestatus: 'draft',
      currency: 'USD',
      invoicedatetime: new Date('2026-11-28T10:00:00Z'),
      created_by: 'u1',
      subtotal: '315.00',
      tax_amount: '14.85',
      invoicetotal: '329.85',
      rounding: 'line',
    });
    expect(plan.lines.map((l) => [l.org_id, l.product_name, l.subtotal, l.tax_amount, l.total])).toEqual([
      [7, 'Widget', '99.00', '14.85', '113.85'],
      [7, 'Service hour', '216.00', '0.00', '216.00'],
    ]);
  });

  it('given a number typed by the client, when decided, then the invoice keeps it and takes none of the series', () => {
    const req = request({ invoicenumber: 'HAND-1' });
    expect(decideCreateInvoice(req, given(req), ctx).supplied).toBe('HAND-1');
  });

  it('given a partner without a currency of its own in a EUR organization, when decided, then the invoice is in EUR', () => {
    const req = request({});
    const defaults = {
      currency: 'EUR',
      rounding: 'document' as const,
      cash_rounding: null,
      accounting_currency: 'EUR',
      time_zone: 'Europe/Paris',
    };
    expect(decideCreateInvoice(req, given(req, { defaults }), ctx).header).toMatchObject({ currency: 'EUR', rounding: 'document' });
  });

  it('given a vendor, when a customer invoice is made for it, then it is refused naming the partner', () => {
    const req = request({});
    expect(() => decideCreateInvoice(req, given(req, { partner: { id: 42, partner_type: 'vendor' } }), ctx)).toThrow(
      expect.objectContaining({ status: 400, errors: [expect.objectContaining({ field: 'partner' })] }),
    );
  });

  it('given a due date before the invoice date, when decided, then it is refused naming invoicedue', () => {
    const req = request({ invoicedatetime: '2026-11-28T09:00:00', invoicedue: '2026-11-27' });
    expect(() => decideCreateInvoice(req, given(req), ctx)).toThrow(
      expect.objectContaining({
        refusal: 'invoice.dueBeforeInvoiceDate',
        code: 'validation_failed',
        errors: [expect.objectContaining({ field: 'invoicedue' })],
      }),
    );
  });

  it('given an exchange rate on an invoice in the accounting currency, when decided, then it is refused naming exchange_rate', () => {
    const req = request({ exchange_rate: 1.1 });
    expect(() => decideCreateInvoice(req, given(req), ctx)).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ field: 'exchange_rate' })] }),
    );
  });

  it('given a credit note naming an invoice in EUR, when decided, then the note is in EUR and links that invoice', () => {
    const req = request({ invoicetype: 'creditout', sourcetype: 'invoice', sourceid: '900' });
    const state = given(req, { credited: { id: 900, invoicenumber: 'INV-00900', currency: 'EUR' } });
    const plan = decideCreateInvoice(req, state, ctx);
    expect(plan.series).toBe('CRN-');
    expect(plan.header).toMatchObject({ currency: 'EUR', credits_invoice_id: 900, invoicetype: 'creditout' });
  });

  it('given a recurring invoice without a frequency, when decided, then it is refused naming recurring.frequency', () => {
    const req = request({ recurring: { enabled: true } });
    expect(() => decideCreateInvoice(req, given(req), ctx)).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ field: 'recurring.frequency' })] }),
    );
  });

  it('given a monthly contract, when decided, then the invoice bills the first period and the next run is a month on', () => {
    const req = request({ recurring: { enabled: true, frequency: 'monthly', start_date: '2026-11-28' } });
    expect(decideCreateInvoice(req, given(req), ctx).header).toMatchObject({
      recurring_enabled: true,
      recurring_frequency: 'monthly',
      recurring_start_date: '2026-11-28',
      recurring_next_run_date: '2026-12-28',
      recurring_status: 'active',
    });
  });
});
