import type { organization } from '@bo/contracts';
import type { DocumentParties } from '@bo/billing';
import { quotationDocument as documentOf, quotationParties } from './quotation-document';
import type { LineRow, QuotationRow } from './quotation.record';

const profile = {
  legal_name: 'Acme Ltd',
  trading_name: null,
  iban: 'IE29AIBK93115212345678',
  bic: null,
  default_currency: 'EUR',
  logo_png: null,
} as unknown as organization.ProfileRecord;
const q = (fields: Partial<QuotationRow>) =>
  ({
    id: 1,
    quotation_number: 'QUO-00001',
    quotation_type: 'quotation',
    status: 'sent',
    partner_id: 4,
    quotation_date: new Date('2026-11-02T10:00:00Z'),
    valid_until: '2026-12-31',
    comments: null,
    quotation_reference: null,
    subtotal: '10.00',
    tax_amount: '2.00',
    total: '12.00',
    currency: null,
    exchange_rate: null,
    rounding: null,
    cash_rounding: null,
    allowances_charges: [],
    ...fields,
  }) as QuotationRow;

/** The document with its parties made from the records given, as a draft's are now or as sending froze them. */
const quotationDocument = (row: QuotationRow, lines: [], parties: DocumentParties, partnerName: string) =>
  documentOf(row, lines, quotationParties(row, parties, partnerName), null);

describe('quotationDocument', () => {
  test('a quotation is issued by the organization, valid until its date, with no account to pay into', () => {
    const d = quotationDocument(q({}), [], { organization: profile, partner: null }, 'Client');
    expect(d).toMatchObject({
      kind: 'quotation',
      number: 'QUO-00001',
      issue_date: '2026-11-02',
      valid_until: '2026-12-31',
      currency: 'EUR',
      draft: false,
      payment_account: null,
    });
    expect([d.seller.name, d.buyer.name]).toEqual(['Acme Ltd', 'Client']);
  });

  test('a proforma asks to be paid into the organization account; drafts and cancelled ones are marked', () => {
    expect(
      quotationDocument(q({ quotation_type: 'proforma' }), [], { organization: profile, partner: null }, 'C').payment_account?.iban,
    ).toBe('IE29AIBK93115212345678');
    expect(quotationDocument(q({ status: 'draft' }), [], { organization: profile, partner: null }, 'C').draft).toBe(true);
    expect(
      quotationDocument(q({ status: 'cancelled', quotation_type: 'estimate' }), [], { organization: profile, partner: null }, 'C'),
    ).toMatchObject({ kind: 'estimate', cancelled: true });
  });

  test("the quotation's own currency, stored when it was made, wins over the organization's default now", () => {
    expect(quotationDocument(q({ currency: 'CHF' }), [], { organization: profile, partner: null }, 'C').currency).toBe('CHF');
  });

  test("its taxes are the kernel's on its stored rows; with its own exchange rate, the VAT in the frozen accounting currency too", () => {
    const lines = [
      {
        id: 1,
        product_id: '7',
        product_name: 'Widget',
        sku: null,
        uom: null,
        description: null,
        quantity: '1',
        price: '10.00',
        discount: '0',
        tax_rate: '20',
        tax_included: false,
        tax_category: 'S',
        subtotal: '10.00',
        tax_amount: '2.00',
        total: '12.00',
      },
    ] as unknown as LineRow[];
    const row = q({ currency: 'USD', exchange_rate: '0.5' });
    const parties = quotationParties(row, { organization: profile, partner: null }, 'C');
    const d = documentOf(row, lines, parties, 'EUR');
    expect(d.taxes?.totals.tax_total.toFixed(2)).toBe('2.00');
    expect(d.accounting).toEqual({ currency: 'EUR', exchange_rate: '0.5', tax_total: '1.00' });
    expect(documentOf({ ...row, exchange_rate: null }, lines, parties, 'EUR').accounting).toBeNull();
    expect(documentOf(row, lines, parties, 'USD').accounting).toBeNull();
  });
});
