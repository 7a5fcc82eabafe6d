import { parseWith, sales } from '@bo/contracts';
import type { ResolvedLine } from '@bo/billing';
import {
  decideCreateQuotation,
  quotationCreatedReply,
  refuseOversizedLines,
  type CreateQuotationRequest,
  type CreateQuotationState,
} from './decide-create-quotation';
import { priceLine } from './quotation-lines';
import { acmeProfile } from './quotation-row.fixtures';

/** A create request as the contract's schema hands it to the handler: a quotation of partner 42 with two lines. */
function request(body: Record<string, unknown> = {}): CreateQuotationRequest {
  const parsed = parseWith(sales.createQuotation.request, {
    org_id: 1,
    action: 'create_quotation',
    partner: 42,
    quotation_type: 'quotation',
    quotation_date: '2026-11-29T09:30:00',
    valid_until: '2026-12-31',
    line_items: [
      { product_id: '7', product_name: 'Widget', quantity: 5, price: 50, discount: 10, tax_rate: 15, tax_included: false },
      { product_id: '3', product_name: 'Service hour', quantity: 2, price: 115, tax_rate: 15, tax_included: true },
    ],
    ...body,
  });
  if (!parsed.ok) throw new Error(`the example request is refused: ${JSON.stringify(parsed)}`);
  return parsed.value;
}

/** The request's lines as the catalog check completes them (resolveCatalogLines). */
function resolved(req: CreateQuotationRequest): ResolvedLine[] {
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

/** A EUR organization, a partner without a currency of its own; ids 900 and 901, 902 drawn at 10:00:00.250 on 29 November. */
function given(req: CreateQuotationRequest, state: Partial<CreateQuotationState> = {}): CreateQuotationState {
  return {
    lines: resolved(req).map(priceLine),
    defaults: { currency: 'EUR', rounding: 'line', cash_rounding: null, accounting_currency: 'EUR', time_zone: null },
    parties: null,
    today: '2026-11-29',
    drawn: { quotationId: 900, lineIds: [901, 902], now: new Date('2026-11-29T10:00:00.250Z') },
    ...state,
  };
}
const who = { orgId: 1, actor: 'u1' };

describe('deciding a new quotation', () => {
  it('given a customer in a EUR organization, when a quotation of two lines is created, then it is a EUR draft of the QUO- series, under the ids and time drawn', () => {
    const req = request();
    const created = decideCreateQuotation(req, given(req), who);
    expect(created.series).toBe('QUO-');
    expect(created.supplied).toBeUndefined();
    expect(created.logo).toBeNull();
    expect(created.row).toMatchObject({
      id: 900,
      org_id: 1,
      quotation_type: 'quotation',
      status: 'draft',
      partner_id: 42,
      currency: 'EUR',
      exchange_rate: null,
      quotation_date: new Date('2026-11-29T09:30:00Z'),
      valid_until: '2026-12-31',
      subtotal: '425.00',
      tax_amount: '63.75',
      discount_total: '25.00',
      total: '488.75',
      line_count: 2,
      issued_parties: null,
      accounting_currency: null,
      invoice_id: null,
      conversion_attempts: 0,
      created_by: 'u1',
      updated_by: 'u1',
      created_at: new Date('2026-11-29T10:00:00.250Z'),
      updated_at: new Date('2026-11-29T10:00:00.250Z'),
    });
    expect(created.lines.map((l) => [l.id, l.quotation_id, l.product_name, l.subtotal, l.tax_amount, l.total])).toEqual([
      [901, 900, 'Widget', '225.00', '33.75', '258.75'],
      [902, 900, 'Service hour', '200.00', '30.00', '230.00'],
    ]);
  });

  it('given a new quotation, when answered, then the reply tells it as stored, under the number the series gave it', () => {
    const req = request({ comments: 'Thanks', quotation_reference: 'PO-77' });
    const reply = quotationCreatedReply(decideCreateQuotation(req, given(req), who), 'QUO-00001', '2026-11-29');
    expect(sales.createQuotation.reply.parse(reply)).toEqual(reply);
    expect(reply).toEqual({
      message: 'Quotation created successfully',
      quotation: expect.objectContaining({
        id: 900,
        orgid: 1,
        partner: '42',
        quotation_number: 'QUO-00001',
        quotation_status: 'draft',
        quotation_date: '2026-11-29T09:30:00',
        valid_until: '2026-12-31',
        comments: 'Thanks',
        quotation_reference: 'PO-77',
        subtotal: 425,
        tax_amount: 63.75,
        quotation_total: 488.75,
        invoice_id: null,
        invoicenumber: null,
        created_at: '2026-11-29T10:00:00',
        updated_at: '2026-11-29T10:00:00',
      }),
    });
    expect(reply.quotation.line_items.map((l) => [l.id, l.quotation_id, l.total])).toEqual([
      [901, 900, 258.75],
      [902, 900, 230],
    ]);
  });

  it('given a number typed by the client, when decided, then the quotation keeps it, trimmed; a proforma is of the PRO- series', () => {
    const req = request({ quotation_number: '  QUO-00004 ', quotation_type: 'proforma' });
    const created = decideCreateQuotation(req, given(req), who);
    expect(created).toMatchObject({ supplied: 'QUO-00004', series: 'PRO-', row: { quotation_number: 'QUO-00004' } });
  });

  it('given a currency asked, when decided, then the quotation is in it, whatever its partner or organization use', () => {
    const req = request({ currency: 'USD', exchange_rate: '1.08' });
    expect(decideCreateQuotation(req, given(req), who).row).toMatchObject({ currency: 'USD', exchange_rate: '1.08' });
  });

  it('given a quotation in the books currency, when an exchange rate other than 1 is given, then it is refused naming the field', () => {
    const req = request({ exchange_rate: '1.2' });
    expect(() => decideCreateQuotation(req, given(req), who)).toThrow(
      expect.objectContaining({ refusal: 'quotation.exchangeRateRefused', errors: [expect.objectContaining({ field: 'exchange_rate' })] }),
    );
  });

  it('given the parties asked of partners, when it is created as sent, then they are frozen with it, beside the accounting currency and its logo', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 9]);
    const req = request({ quotation_status: 'sent' });
    const parties = {
      records: { organization: acmeProfile({ logo_png: png.toString('base64') }), partner: null },
      partnerName: 'Client Co',
    };
    const created = decideCreateQuotation(req, given(req, { parties }), who);
    expect(created.row).toMatchObject({
      status: 'sent',
      currency: 'EUR',
      accounting_currency: 'EUR',
      issued_parties: expect.objectContaining({ currency: 'EUR', buyer: { name: 'Client Co' }, logo_sha256: created.logo?.sha256 }),
    });
    expect(created.logo?.png).toEqual(png);
  });

  it('given a line whose own total is too large, when checked, then it is refused by its place; lines too large together are refused as a whole', () => {
    const huge = request({
      line_items: [
        { product_id: '1', quantity: 1, price: 1, tax_rate: 0, tax_included: false },
        { product_id: '2', quantity: '100000000', price: '100000', tax_rate: 0, tax_included: false },
      ],
    });
    expect(() => refuseOversizedLines(given(huge).lines)).toThrow(
      expect.objectContaining({
        refusal: 'quotation.lineItemTotalsTooLarge',
        errors: [expect.objectContaining({ field: 'line_items.1' })],
      }),
    );
    const many = request({
      line_items: Array.from({ length: 11 }, () => ({
        product_id: '1',
        quantity: '10000',
        price: '99999999',
        tax_rate: 0,
        tax_included: false,
      })),
    });
    expect(() => refuseOversizedLines(given(many).lines)).toThrow(expect.objectContaining({ refusal: 'quotation.quotationTotalTooLarge' }));
    expect(() => refuseOversizedLines(given(request()).lines)).not.toThrow();
  });
});
