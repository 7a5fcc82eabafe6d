import type { DocumentDefaults } from '@bo/billing';
import { decideNewInvoice, newInvoiceRows, type LineValues, type NewInvoice } from './decide-new-invoice';

/**
 * decideNewInvoice, given/when/then: the currency a new invoice takes, how an exchange rate that no
 * longer fits is treated (refused when the client gave it, dropped when the server carried it from a
 * quotation or a contract), its numbering and its stored columns. Create invoice's own decision
 * (decide-create-invoice.unit.test.ts) runs through it.
 */
const EUR_BOOKS: DocumentDefaults = { currency: 'EUR', rounding: 'line', cash_rounding: null, accounting_currency: 'EUR', time_zone: null };

const line: LineValues = {
  product_id: '1',
  variant_id: null,
  location_id: null,
  product_name: 'Widget',
  sku: null,
  uom: null,
  quantity: '2',
  price: '10.005',
  tax_rate: '20',
  tax_included: false,
  tax_category: null,
};

function invoice(values: Partial<NewInvoice> = {}): NewInvoice {
  return {
    invoicetype: 'invoiceout',
    partner_id: 42,
    invoicestatus: 'draft',
    invoicedatetime: new Date('2026-11-29T09:00:00Z'),
    ...values,
  };
}

describe('deciding a new invoice', () => {
  it('given no currency asked, when decided, then it takes the defaults’ currency and the next number of its type’s series', () => {
    const plan = decideNewInvoice(7, invoice(), [line], EUR_BOOKS);
    expect(plan.header).toMatchObject({ currency: 'EUR', org_id: 7, partner_id: 42 });
    expect(plan.supplied).toBeUndefined();
    expect(plan.series).toBe('INV-');
    expect(decideNewInvoice(7, invoice({ invoicetype: 'invoicein' }), [line], EUR_BOOKS).series).toBe('BILL-');
  });

  it('given a number supplied, when decided, then that number is kept (an empty one counts as none)', () => {
    expect(decideNewInvoice(7, invoice({ invoicenumber: 'X-1' }), [line], EUR_BOOKS).supplied).toBe('X-1');
    expect(decideNewInvoice(7, invoice({ invoicenumber: '' }), [line], EUR_BOOKS).supplied).toBeUndefined();
  });

  it('given lines, when decided, then each stores the server’s exact arithmetic in the request’s order (2 × 10.005 is 20.01, its 20 % rounded per line), its texts and discount defaulted', () => {
    const plan = decideNewInvoice(7, invoice(), [line, { ...line, product_id: '2', quantity: '1', price: '5' }], EUR_BOOKS);
    expect(plan.lines.map((l) => l.product_id)).toEqual(['1', '2']);
    expect(plan.lines[0]).toMatchObject({ org_id: 7, quantity: '2', discount: '0', description: null, catalog_checked: true });
    expect(plan.lines.map((l) => [l.subtotal, l.tax_amount, l.total])).toEqual([
      ['20.01', '4.00', '24.01'],
      ['5.00', '1.00', '6.00'],
    ]);
    expect(plan.header).toMatchObject({ subtotal: '25.01', tax_amount: '5.00', invoicetotal: '30.01', rounding: 'line' });
  });

  it('given a client’s exchange rate on an invoice in the accounting currency, when decided, then it is refused on exchange_rate', () => {
    expect(() => decideNewInvoice(7, invoice({ currency: 'EUR', exchange_rate: '1.1' }), [line], EUR_BOOKS)).toThrow(
      expect.objectContaining({ refusal: 'invoice.exchangeRateRefused', code: 'validation_failed' }),
    );
  });

  it('given the same rate carried from a converted quotation or a recurring contract, when decided, then it is dropped and the invoice books at 1', () => {
    for (const carried of [{ converted_from_quotation_id: 5 }, { parent_id: 9 }]) {
      const plan = decideNewInvoice(7, invoice({ currency: 'EUR', exchange_rate: '1.1', ...carried }), [line], EUR_BOOKS);
      expect(plan.header.exchange_rate).toBeNull();
    }
  });

  it('given a rate on an invoice in another currency than the books’, when decided, then it is kept', () => {
    const plan = decideNewInvoice(7, invoice({ currency: 'USD', exchange_rate: '0.92' }), [line], EUR_BOOKS);
    expect(plan.header).toMatchObject({ currency: 'USD', exchange_rate: '0.92' });
  });
});

describe('the rows an optimistic create writes', () => {
  const drawn = { invoiceId: 501, lineIds: [9001, 9002], now: new Date('2026-11-29T09:00:01.250Z') };

  it('given a plan and what was drawn, when made into rows, then every column is given: the plan’s over what a new invoice starts with', () => {
    const plan = decideNewInvoice(7, invoice({ comments: 'hello' }), [line, { ...line, product_id: '2' }], EUR_BOOKS);
    const { row, lines } = newInvoiceRows(plan, drawn, 'INV-00042');
    expect(row).toMatchObject({
      id: 501,
      org_id: 7,
      invoicenumber: 'INV-00042',
      comments: 'hello',
      amount_paid: '0.00',
      written_off_amount: '0.00',
      recurring_enabled: false,
      issued_parties: null,
      version: 1,
      created_at: drawn.now,
      updated_at: drawn.now,
      tax_breakdown: [expect.objectContaining({ tax_category: 'S', tax_rate: '20' })],
      allowances_charges: [],
    });
    expect(lines.map((l) => [l.id, l.invoice_id, l.product_id])).toEqual([
      [9001, 501, '1'],
      [9002, 501, '2'],
    ]);
  });

  it('given a recurring plan, when made into rows, then its contract’s columns are the plan’s', () => {
    const plan = decideNewInvoice(
      7,
      invoice({ recurring_enabled: true, recurring_frequency: 'monthly', recurring_next_index: 1 }),
      [line],
      EUR_BOOKS,
    );
    expect(newInvoiceRows(plan, drawn, 'INV-00043').row).toMatchObject({
      recurring_enabled: true,
      recurring_frequency: 'monthly',
      recurring_next_index: 1,
    });
  });
});
