import type { OrganizationSettings } from '@bo/billing';
import { addLineReply, decideAddLine, MAX_LINES, type AddLineState } from './decide-add-line';
import type { LineValues } from './decide-new-invoice';
import { openInvoiceRow } from './invoice-row.fixtures';
import type { LineRow } from './invoice.record';

/** A line as the catalog check completes it. */
const entered = (price: string, tax_rate = '20'): LineValues => ({
  product_id: '1',
  variant_id: null,
  location_id: null,
  product_name: 'Widget',
  sku: null,
  uom: null,
  quantity: '1',
  price,
  tax_rate,
  tax_included: false,
});

/** A stored line of INV-0007 with its amounts as a calculation of its own gave them. */
const stored = (id: number, price: string, tax: string): LineRow =>
  ({
    ...entered(price),
    id,
    org_id: 1,
    invoice_id: 7,
    description: null,
    discount: '0',
    tax_category: 'S',
    tax_exemption_reason: null,
    tax_exemption_code: null,
    reverse_charge_rate: null,
    stated_tax: null,
    catalog_checked: true,
    subtotal: price,
    tax_amount: tax,
    total: (Number(price) + Number(tax)).toFixed(2),
  }) as LineRow;

const settings = (rounding: 'line' | 'document'): OrganizationSettings => ({
  org_id: 1,
  time_zone: null,
  default_currency: 'EUR',
  rounding,
  cash_rounding: null,
  version: 1,
});

const draft = (lines: LineRow[], rounding: 'line' | 'document' = 'line'): AddLineState => ({
  invoice: openInvoiceRow({ invoicestatus: 'draft', amount_paid: '0.00', allowances_charges: [] }),
  lines,
  settings: settings(rounding),
});

describe('deciding a line added to an invoice', () => {
  it('given a draft of one line, when a line is added, then it is stored with its taxes and the invoice totals both', () => {
    const plan = decideAddLine(draft([stored(70, '10.00', '2.00')]), entered('5.00'));
    expect(plan.line).toMatchObject({ org_id: 1, invoice_id: 7, price: '5.00', subtotal: '5.00', tax_amount: '1.00', total: '6.00' });
    expect(plan.changed).toEqual([]);
    expect(plan.header).toMatchObject({
      subtotal: '15.00',
      tax_amount: '3.00',
      invoicetotal: '18.00',
      vat_total: '3.00',
      rounding: 'line',
    });
    const reply = addLineReply(plan, 71);
    expect(reply.line_item).toMatchObject({ id: 71, invoiceid: 7, price: 5, subtotal: 5, tax_amount: 1, total: 6 });
    expect(reply.invoice).toMatchObject({ id: 7, subtotal: 15, invoicetotal: 18, tax_breakdown: [{ tax_category: 'S', tax_amount: 3 }] });
  });

  it('given lines whose VAT the document rounds per category, when a line is added, then the lines it moves are rewritten', () => {
    // 0.05 at 10 % is 0.005 a line. Two lines share 0.01 of VAT, stored as 0.01 and 0.00; a third
    // makes it 0.015, rounded to 0.02: the second line's share moves to 0.01, and only it is rewritten.
    const lines = [
      { ...stored(70, '0.05', '0.01'), tax_rate: '10' },
      { ...stored(71, '0.05', '0.00'), tax_rate: '10' },
    ];
    const plan = decideAddLine(draft(lines, 'document'), { ...entered('0.05'), tax_rate: '10' });
    expect(plan.header).toMatchObject({ subtotal: '0.15', vat_total: '0.02', invoicetotal: '0.17' });
    expect(plan.changed).toEqual([{ id: 71, columns: { tax_category: 'S', subtotal: '0.05', tax_amount: '0.01', total: '0.06' } }]);
    expect(plan.line).toMatchObject({ tax_amount: '0.00', total: '0.05' });
  });

  it('given an issued invoice, when a line is added, then it is refused naming its status', () => {
    expect(() => decideAddLine({ ...draft([]), invoice: openInvoiceRow() }, entered('5.00'))).toThrow(
      expect.objectContaining({
        code: 'invalid_state',
        message: 'Lines can only be added to draft or proforma invoices; invoice INV-0007 is open',
      }),
    );
  });

  it('given a draft at the most lines an invoice takes, when a line is added, then it is refused', () => {
    const full = Array.from({ length: MAX_LINES }, (_, i) => stored(i + 1, '1.00', '0.20'));
    expect(() => decideAddLine(draft(full), entered('5.00'))).toThrow(
      expect.objectContaining({ code: 'invalid_state', message: `Invoice INV-0007 already has the maximum of ${MAX_LINES} lines` }),
    );
  });
});
