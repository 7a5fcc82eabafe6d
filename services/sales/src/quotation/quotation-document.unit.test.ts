import type { organization } from '@bo/contracts';
import type { DocumentParties } from '@bo/runtime';
import { quotationDocument as documentOf, quotationParties } from './quotation-document';
import type { QuotationRow } from './quotation.record';

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
    ...fields,
  }) as QuotationRow;

/** The document with its parties made from the records given, as a draft's are now or as sending froze them. */
const quotationDocument = (row: QuotationRow, lines: [], parties: DocumentParties, partnerName: string) =>
  documentOf(row, lines, quotationParties(row, parties, partnerName));

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
});
