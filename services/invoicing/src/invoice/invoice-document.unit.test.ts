import type { organization, partners } from '@bo/contracts';
import type { DocumentParties } from '@bo/billing';
import { invoiceDocument, type InvoiceDocumentInput } from './invoice-document';
import type { InvoiceRow, LineRow } from './invoice.record';
import { invoiceParties } from './issued-snapshot';

const profile = {
  org_id: 1,
  version: 3,
  legal_name: 'Acme Ltd',
  trading_name: 'Acme',
  address_line1: '1 Main St',
  address_line2: null,
  city: 'Dublin',
  postal_code: 'D02',
  country: 'IE',
  vat_id: 'IE1',
  company_id: null,
  email: 'a@acme.test',
  phone: null,
  iban: 'IE29AIBK93115212345678',
  bic: 'AIBKIE2D',
  default_currency: 'EUR',
  time_zone: null,
  rounding: 'line',
  cash_rounding: null,
  lock_date: null,
  peppol_id: null,
  logo_png: Buffer.from('png').toString('base64'),
  logo_sha256: 'x',
  logo_bytes: 3,
  updated_at: null,
} satisfies organization.ProfileRecord;

const partner = {
  id: 9,
  partnername: 'Client SA',
  display_name: 'Client',
  address: 'Old street 1\n75001 Paris',
  address_line1: null,
  address_line2: null,
  city: null,
  postal_code: null,
  region: null,
  country: 'FR',
  email: 'c@client.test',
  phone: null,
  tax_number: 'FR1',
  currency: 'USD',
} as unknown as partners.PartnerRecord;

const row = (fields: Partial<InvoiceRow>): InvoiceRow =>
  ({
    id: 5,
    invoicenumber: 'INV-00005',
    invoicetype: 'invoiceout',
    partner_id: 9,
    invoicestatus: 'open',
    invoicedatetime: new Date('2026-11-02T23:30:00Z'),
    invoicedue: '2026-12-02',
    comments: null,
    invoicereference: 'PO-1',
    invoiceterms: 'Net 30',
    subtotal: '100.00',
    tax_amount: '20.00',
    invoicetotal: '120.00',
    amount_paid: '20.00',
    sourcetype: null,
    sourceid: null,
    sourcenumber: null,
    currency: null,
    exchange_rate: null,
    rounding: null,
    cash_rounding: null,
    allowances_charges: [],
    ...fields,
  }) as InvoiceRow;

/** A line of 2 x 50.00 at 20 %, as stored. */
const line = (fields: Partial<LineRow> = {}): LineRow =>
  ({
    id: 1,
    product_id: '7',
    product_name: 'Widget',
    sku: null,
    uom: null,
    description: null,
    quantity: '2',
    price: '50.00',
    discount: '0',
    tax_rate: '20',
    tax_included: false,
    tax_category: 'S',
    tax_exemption_reason: null,
    tax_exemption_code: null,
    reverse_charge_rate: null,
    subtotal: '100.00',
    tax_amount: '20.00',
    total: '120.00',
    ...fields,
  }) as LineRow;

/** The document of an invoice whose parties are the records given (as a draft's are now, or as validation froze them). */
const input = (
  fields: Partial<InvoiceRow>,
  extra: {
    parties?: DocumentParties;
    partnerName?: string;
    credited?: InvoiceDocumentInput['credited'];
    lines?: LineRow[];
    accounting?: InvoiceDocumentInput['accounting'];
  } = {},
): InvoiceDocumentInput => {
  const invoice = row(fields);
  return {
    invoice,
    lines: extra.lines ?? [],
    parties: invoiceParties(invoice, extra.parties ?? { organization: profile, partner }, extra.partnerName ?? 'Client SA'),
    credited: extra.credited ?? null,
    accounting: extra.accounting ?? { currency: null, exchange_rate: null },
  };
};

describe('invoiceDocument', () => {
  test('what the organization issues has it as seller, its account to pay into and its logo; the partner as buyer in its currency', () => {
    const d = invoiceDocument(input({}));
    expect(d).toMatchObject({
      kind: 'invoice',
      number: 'INV-00005',
      draft: false,
      cancelled: false,
      issue_date: '2026-11-02',
      due_date: '2026-12-02',
      currency: 'USD',
    });
    expect(d.seller.name).toBe('Acme Ltd');
    expect(d.buyer).toMatchObject({ name: 'Client SA', vat_id: 'FR1', country: 'FR', address_lines: ['Old street 1', '75001 Paris'] });
    expect(d.payment_account).toEqual({ iban: 'IE29AIBK93115212345678', bic: 'AIBKIE2D', name: 'Acme Ltd' });
    expect(Buffer.from(d.logo_png!).toString()).toBe('png');
    // 20.00 paid is no part of the issued document: it states the whole total due.
    expect(d.amount_paid).toBeUndefined();
  });

  test('an issued invoice states the VAT it was posted with: one issued under line rounding when BT-117 was base x rate keeps 3.19 and its cent of BT-114', () => {
    const lines = [
      line({ quantity: '1', price: '10', tax_rate: '19', tax_included: true }),
      line({ id: 2, quantity: '1', price: '10', tax_rate: '19', tax_included: true }),
    ];
    const posted = {
      tax_breakdown: [
        { tax_category: 'S', tax_rate: '19', taxable_amount: '16.80', tax_amount: '3.19', exemption_reason: null, exemption_code: null },
      ],
      vat_total: '3.1900',
      rounding_amount: '0.0100',
      rounding: 'line' as const,
    };
    const issued = invoiceDocument(input({ ...posted, currency: 'EUR' }, { lines })).taxes!;
    expect([
      issued.breakdown[0]!.tax_amount.toFixed(2),
      issued.totals.tax_inclusive_amount.toFixed(2),
      issued.totals.rounding_amount.toFixed(2),
      issued.totals.payable_amount.toFixed(2),
    ]).toEqual(['3.19', '19.99', '0.01', '20.00']);
    // A draft states what the kernel decides now: the lines' 3.20.
    const draft = invoiceDocument(input({ ...posted, currency: 'EUR', invoicestatus: 'draft' }, { lines })).taxes!;
    expect([draft.breakdown[0]!.tax_amount.toFixed(2), draft.totals.rounding_amount.toFixed(2)]).toEqual(['3.20', '0.00']);
  });

  test('a credit note the organization issues names no account to pay into: it owes the customer', () => {
    const d = invoiceDocument(input({ invoicetype: 'creditout' }));
    expect(d.kind).toBe('credit_note');
    expect(d.seller.name).toBe('Acme Ltd');
    expect(d.payment_account).toBeNull();
  });

  test('a vendor bill has the vendor as seller, the organization as buyer, and no account to pay into', () => {
    const d = invoiceDocument(input({ invoicetype: 'invoicein' }));
    expect(d.kind).toBe('vendor_bill');
    expect([d.seller.name, d.buyer.name]).toEqual(['Client SA', 'Acme Ltd']);
    expect(d.payment_account).toBeNull();
    expect(invoiceDocument(input({ invoicetype: 'creditin' })).kind).toBe('vendor_credit_note');
  });

  test('statuses: proforma is its own kind, drafts and cancelled invoices are marked', () => {
    expect(invoiceDocument(input({ invoicestatus: 'proforma' })).kind).toBe('proforma');
    expect(invoiceDocument(input({ invoicestatus: 'draft' })).draft).toBe(true);
    expect(invoiceDocument(input({ invoicestatus: 'cancelled' })).cancelled).toBe(true);
  });

  test('a deleted partner keeps its name from the read model; the currency falls back to the organization default', () => {
    const d = invoiceDocument(input({}, { parties: { organization: profile, partner: null } }));
    expect(d.buyer).toEqual({ name: 'Client SA', deleted: true });
    expect(d.currency).toBe('EUR');
  });

  test("the invoice's own currency, stored when it was made, wins over the partner's and the organization's now", () => {
    expect(invoiceDocument(input({ currency: 'GBP' })).currency).toBe('GBP');
    expect(invoiceDocument(input({ currency: 'GBP' }, { parties: { organization: profile, partner: null } })).currency).toBe('GBP');
  });

  test("the taxes are the kernel's on the stored rows with the stored policy: the breakdown, allowances and totals as answered", () => {
    const d = invoiceDocument(
      input(
        {
          currency: 'EUR',
          subtotal: '90.00',
          tax_amount: '18.00',
          invoicetotal: '108.00',
          allowances_charges: [
            {
              charge: false,
              amount: '10.00',
              percent: null,
              base_amount: null,
              reason: 'Discount',
              reason_code: null,
              tax_category: 'S',
              tax_rate: '20',
              tax_exemption_reason: null,
              tax_exemption_code: null,
              reverse_charge_rate: null,
            },
          ],
        },
        { lines: [line()] },
      ),
    );
    expect(
      d.taxes?.breakdown.map((b) => [b.tax_category, b.tax_rate.toFixed(), b.taxable_amount.toFixed(2), b.tax_amount.toFixed(2)]),
    ).toEqual([['S', '20', '90.00', '18.00']]);
    expect(d.taxes?.totals.payable_amount.toFixed(2)).toBe('108.00');
    expect(d.accounting).toBeNull();
  });

  test('a stored document the rules refuse now is not rendered: a 400 naming what they refuse', () => {
    expect(() => invoiceDocument(input({ currency: 'EUR' }, { lines: [line({ tax_category: 'L', tax_rate: '0' })] }))).toThrow(
      /INV-00005 cannot be rendered: its stored taxes are refused by the rules now \(line_items\.0\.tax_rate: an IGIC \(L\) line has a rate above 0/,
    );
  });

  test('in another currency than the accounting one, the VAT is stated in that one too at the rate given (BT-6, BT-111)', () => {
    const usd = input(
      { currency: 'USD', exchange_rate: '0.9215' },
      { lines: [line()], accounting: { currency: 'EUR', exchange_rate: '0.9215' } },
    );
    expect(invoiceDocument(usd).accounting).toEqual({ currency: 'EUR', exchange_rate: '0.9215', tax_total: '18.43' });
    // In the accounting currency, or without a rate or an accounting currency: nothing more is stated.
    const eur = input({ currency: 'EUR' }, { lines: [line()], accounting: { currency: 'EUR', exchange_rate: '1' } });
    expect(invoiceDocument(eur).accounting).toBeNull();
    expect(
      invoiceDocument(input({ currency: 'USD' }, { lines: [line()], accounting: { currency: 'EUR', exchange_rate: null } })).accounting,
    ).toBeNull();
    expect(
      invoiceDocument(input({ currency: 'USD' }, { lines: [line()], accounting: { currency: null, exchange_rate: '2' } })).accounting,
    ).toBeNull();
  });
});
