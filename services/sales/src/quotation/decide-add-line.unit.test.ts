import { sales } from '@bo/contracts';
import { decideAddLine, type AddLineState } from './decide-add-line';
import { priceLine } from './quotation-lines';
import { draftQuotationRow, quotationState, resolvedLine, widgetLineRow } from './quotation-row.fixtures';

/** QUO-00005 as the load reads it, with the id its new line takes. */
const given = (over: Partial<AddLineState> = {}): AddLineState => ({ ...quotationState(), lineId: 12, ...over });
/** 1.5 of product 8 at 10.10, 20% VAT: 15.15 + 3.03. */
const line = priceLine(resolvedLine());

describe('deciding a line added to a quotation', () => {
  it('given a draft with one line, when a line is added, then it is stored under the drawn id and the totals tell both lines', () => {
    const added = decideAddLine(given(), line, 'u7');
    expect(added.line).toEqual({
      id: 12,
      org_id: 1,
      quotation_id: 5,
      product_id: '8',
      variant_id: null,
      location_id: null,
      product_name: 'Product 8',
      sku: null,
      uom: null,
      description: null,
      quantity: '1.5',
      price: '10.10',
      discount: '0',
      tax_rate: '20',
      tax_included: false,
      tax_category: 'S',
      tax_exemption_reason: null,
      tax_exemption_code: null,
      reverse_charge_rate: null,
      subtotal: '15.15',
      tax_amount: '3.03',
      total: '18.18',
      discount_amount: '0.00',
    });
    expect(added.header).toMatchObject({
      subtotal: '240.15',
      tax_amount: '36.78',
      discount_total: '25.00',
      total: '276.93',
      vat_total: '36.78',
      rounding: 'line',
      line_count: 2,
      updated_by: 'u7',
    });
    expect(added.changedLines).toEqual([]);
    expect(added.reply).toEqual({
      message: 'Line added successfully',
      line_item: expect.objectContaining({ id: 12, quotation_id: 5, quantity: 1.5, price: 10.1, subtotal: 15.15, total: 18.18 }),
      totals: {
        subtotal: 240.15,
        tax_amount: 36.78,
        discount_total: 25,
        quotation_total: 276.93,
        vat_total: 36.78,
        rounding_amount: 0,
        tax_breakdown: [
          { tax_category: 'S', tax_rate: 15, taxable_amount: 225, tax_amount: 33.75, exemption_reason: null, exemption_code: null },
          { tax_category: 'S', tax_rate: 20, taxable_amount: 15.15, tax_amount: 3.03, exemption_reason: null, exemption_code: null },
        ],
      },
    });
  });

  it('given a draft, when a line is added, then the reply tells exactly the rows the store writes, as its contract reads them', () => {
    const { line: stored, header, reply } = decideAddLine(given(), line, null);
    expect(sales.addQuotationLine.reply.parse(reply)).toEqual(reply);
    expect(reply.line_item).toMatchObject({
      id: stored.id,
      quotation_id: stored.quotation_id,
      quantity: Number(stored.quantity),
      price: Number(stored.price),
      tax_category: stored.tax_category,
      subtotal: Number(stored.subtotal),
      tax_amount: Number(stored.tax_amount),
      total: Number(stored.total),
    });
    expect(reply.totals).toMatchObject({
      subtotal: Number(header.subtotal),
      tax_amount: Number(header.tax_amount),
      discount_total: Number(header.discount_total),
      quotation_total: Number(header.total),
      vat_total: Number(header.vat_total),
      rounding_amount: Number(header.rounding_amount),
    });
    expect(reply.totals.tax_breakdown.map((b) => b.taxable_amount)).toEqual(header.tax_breakdown!.map((b) => Number(b.taxable_amount)));
    expect(header.updated_by).toBeNull();
  });

  it('given a draft, when a line is added, then it is computed with the organization policy now; a sent one keeps the policy it was sent with', () => {
    const policy = { rounding: 'document' as const, cash_rounding: null, accounting_currency: 'EUR' };
    expect(decideAddLine(given({ policy }), line, null).header.rounding).toBe('document');
    const sent = given({ policy, quotation: draftQuotationRow({ status: 'sent', rounding: 'line' }) });
    expect(decideAddLine(sent, line, null).header.rounding).toBe('line');
  });

  it('given document rounding, when a line takes over a stored line share of the VAT, then that line is stored again with its new amounts', () => {
    // 0.05 at 10% alone rounds its VAT up to 0.01; beside 0.06 the category's 0.01 goes to the larger share.
    const small = widgetLineRow({ quantity: '1.0000', price: '0.0500', discount: '0.0000', tax_rate: '10.0000' });
    const stored = { ...small, subtotal: '0.05', tax_amount: '0.01', total: '0.06', discount_amount: '0.00' };
    const state = given({
      policy: { rounding: 'document', cash_rounding: null, accounting_currency: 'EUR' },
      quotation: draftQuotationRow({ rounding: 'document', subtotal: '0.05', tax_amount: '0.01', total: '0.06', discount_total: '0.00' }),
      lines: [stored],
    });
    const added = decideAddLine(state, priceLine(resolvedLine({ quantity: '1', price: '0.06', tax_rate: '10' })), null);
    expect(added.changedLines).toEqual([{ id: 11, tax_category: 'S', subtotal: '0.05', tax_amount: '0.00', total: '0.05' }]);
    expect(added.line).toMatchObject({ subtotal: '0.06', tax_amount: '0.01', total: '0.07' });
    expect(added.header).toMatchObject({ subtotal: '0.11', tax_amount: '0.01', total: '0.12' });
  });

  it('given an accepted, converted, cancelled or expired quotation, when a line is added, then it is refused naming its status, for good', () => {
    for (const [over, status] of [
      [{ status: 'accepted' }, 'accepted'],
      [{ status: 'converted' }, 'converted'],
      [{ status: 'cancelled' }, 'cancelled'],
      [{ valid_until: '2026-11-28' }, 'expired'],
    ] as const) {
      expect(() => decideAddLine(given({ quotation: draftQuotationRow(over) }), line, null)).toThrow(
        expect.objectContaining({
          refusal: 'quotation.refusedInStatus',
          status: 400,
          transient: false,
          message: expect.stringContaining(`in status ${status}`),
        }),
      );
    }
  });

  it('given a quotation frozen by a conversion under way, when a line is added, then it is refused until the conversion ends', () => {
    const frozen = draftQuotationRow({ conversion_attempted_at: new Date('2026-11-29T09:00:00Z') });
    expect(() => decideAddLine(given({ quotation: frozen }), line, null)).toThrow(
      expect.objectContaining({ refusal: 'quotation.refusedInStatus', transient: true }),
    );
  });

  it('given a quotation holding the most lines it can, when a line is added, then it is refused', () => {
    const full = draftQuotationRow({ line_count: sales.MAX_QUOTATION_LINES });
    expect(() => decideAddLine(given({ quotation: full }), line, null)).toThrow(
      expect.objectContaining({ refusal: 'quotation.tooManyLines', code: 'invalid_state' }),
    );
  });

  it('given a quotation near the largest total, when a line would take it over, then it is refused', () => {
    const large = widgetLineRow({ quantity: '9999.0000', price: '999999999.0000', discount: '0.0000', tax_rate: '0.0000' });
    const stored = { ...large, tax_category: 'Z', subtotal: '9998999990001.00', tax_amount: '0.00', total: '9998999990001.00' };
    expect(() => decideAddLine(given({ lines: [stored] }), priceLine(resolvedLine({ quantity: '2', price: '999999999' })), null)).toThrow(
      expect.objectContaining({ refusal: 'quotation.lineMakesTotalTooLarge' }),
    );
  });

  it('given a line the tax rules refuse, when added, then the refusal names its own field, not its place among the lines', () => {
    const exempt = priceLine(resolvedLine({ tax_rate: '0', tax_category: 'E' }));
    expect(() => decideAddLine(given(), exempt, null)).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ field: expect.not.stringContaining('line_items') })] }),
    );
  });
});
