import type { organization, partners } from '@bo/contracts';
import type { CreditExposure } from './credit-limit-check';
import type { CreditedFacts } from './credit-note-link';
import { decideValidation, needsTableRate, postedInvoice, validationCurrency, type ValidationState } from './decide-validation';
import type { InvoiceRow, LineRow } from './invoice.record';

const profile = {
  org_id: 7,
  legal_name: 'Seller Ltd',
  trading_name: null,
  vat_id: 'GB123',
  default_currency: 'USD',
  iban: 'GB33BUKB20201555555555',
  bic: 'BUKBGB22',
} as unknown as organization.ProfileRecord;

const partner = {
  id: 42,
  partnername: 'Buyer Inc',
  display_name: null,
  currency: null,
  vat_id: 'US9',
} as unknown as partners.PartnerRecord;

const draft = (fields: Partial<InvoiceRow> = {}): InvoiceRow =>
  ({
    id: 5,
    org_id: 7,
    invoicenumber: 'INV-00005',
    invoicetype: 'invoiceout',
    partner_id: 42,
    invoicestatus: 'draft',
    invoicedatetime: new Date('2026-11-20T10:00:00Z'),
    invoicedue: '2026-12-20',
    invoicetotal: '120.00',
    amount_paid: '0',
    currency: 'USD',
    exchange_rate: null,
    credits_invoice_id: null,
    restock: true,
    allowances_charges: [],
    ...fields,
  }) as InvoiceRow;

/** A line of 2 x 50.00 at 20 %, checked against the catalog. */
const line = (fields: Partial<LineRow> = {}): LineRow =>
  ({
    id: 11,
    org_id: 7,
    invoice_id: 5,
    product_id: '3',
    product_name: 'Widget',
    variant_id: null,
    location_id: null,
    quantity: '2',
    price: '50.00',
    discount: '0',
    tax_rate: '20',
    tax_included: false,
    tax_category: 'S',
    tax_exemption_reason: null,
    tax_exemption_code: null,
    reverse_charge_rate: null,
    subtotal: '0',
    tax_amount: '0',
    total: '0',
    catalog_checked: true,
    stocked: null,
    ...fields,
  }) as LineRow;

function given(state: Partial<ValidationState> = {}, facts: Partial<ValidationState['facts']> = {}): ValidationState {
  return {
    invoice: draft(),
    lines: [line()],
    lockDate: null,
    today: '2026-11-28',
    named: 'invoice INV-00005',
    facts: {
      checksCredit: false,
      parties: { records: { organization: profile, partner }, partnerName: 'Buyer Inc', credit: null },
      notStocked: [],
      invoiceDate: '2026-11-20',
      ...facts,
    },
    policy: { rounding: 'line', cash_rounding: null, accounting_currency: 'USD' },
    credited: null,
    tableRate: null,
    exposure: null,
    ...state,
  };
}

const credit = (fields: Partial<partners.PartnerCredit> = {}): partners.PartnerCredit => ({
  balance: 0,
  receivable: 0,
  credit_limit: 500,
  available_credit: 500,
  currency: 'USD',
  ...fields,
});
const noExposure: CreditExposure = { open: [], committed: [], tableRates: new Map() };

/** The invoice INV-00001 a credit note credits: 240.00 USD, 4 of product 3 delivered. */
const credited = (fields: Partial<CreditedFacts> = {}): CreditedFacts => ({
  invoice: draft({ id: 1, invoicenumber: 'INV-00001', invoicestatus: 'open', invoicetotal: '240.00', currency: 'USD' }),
  validatedNotes: [],
  delivered: [{ product_id: '3', quantity: '4' }],
  returned: [],
  ...fields,
});
const note = (fields: Partial<InvoiceRow> = {}) =>
  draft({ id: 6, invoicenumber: 'CN-00001', invoicetype: 'creditout', credits_invoice_id: 1, ...fields });

const refusal = (code: string, message: string) => expect.objectContaining({ code, message: expect.stringContaining(message) });

describe('deciding a validation', () => {
  it('given a customer invoice in the accounting currency, when validated, then it is open, posted to receivable, sales and VAT, and moves its stock', () => {
    const effects = decideValidation(given());
    expect(effects.invoice).toMatchObject({
      invoicestatus: 'open',
      subtotal: '100.00',
      tax_amount: '20.00',
      invoicetotal: '120.00',
      currency: 'USD',
      accounting_currency: 'USD',
      payment_reference: expect.any(String),
    });
    expect(effects.invoice).not.toHaveProperty('exchange_rate');
    expect(effects.settled).toBe(false);
    expect(effects.lines).toEqual([{ id: 11, tax_category: 'S', subtotal: '100.00', tax_amount: '20.00', total: '120.00', stocked: '2' }]);
    expect(effects.entry.header).toEqual({
      org_id: 7,
      invoice_id: 5,
      kind: 'invoice',
      journalname: 'Sales Journal',
      journaldate: '2026-11-20',
      reference: 'INV-00005',
    });
    expect(effects.entry.lines.map((l) => [l.account, l.debit.toFixed(2), l.credit.toFixed(2)])).toEqual([
      ['1200 Accounts Receivable', '120.00', '0.00'],
      ['4000 Sales Revenue', '0.00', '100.00'],
      [expect.stringContaining('Tax Payable'), '0.00', '20.00'],
    ]);
    expect(effects.issuedParties).toMatchObject({ currency: 'USD', seller: { name: 'Seller Ltd' }, buyer: { name: 'Buyer Inc' } });
    expect(effects.issuedParties.payment_account).toMatchObject({ iban: profile.iban });
    expect([effects.accountingTotal, effects.tradeDelta]).toEqual([120, 120]);
  });

  it('given a vendor bill, when validated, then it posts to payables and purchases with the vendor as seller, and takes no payment reference', () => {
    const effects = decideValidation(given({ invoice: draft({ invoicetype: 'invoicein', invoicenumber: 'BILL-1' }) }));
    expect(effects.entry.header.journalname).toBe('Purchase Journal');
    expect(effects.entry.lines.map((l) => l.account)).toEqual([
      '2000 Accounts Payable',
      '5000 Purchases',
      expect.stringContaining('Tax Receivable'),
    ]);
    expect(effects.invoice).not.toHaveProperty('payment_reference');
    expect(effects.issuedParties).toMatchObject({ seller: { name: 'Buyer Inc' }, buyer: { name: 'Seller Ltd' }, payment_account: null });
  });

  it('given a zero-total document, when validated, then it is paid at once', () => {
    const effects = decideValidation(given({ lines: [line({ price: '0' })] }));
    expect(effects.invoice.invoicestatus).toBe('paid');
    expect(effects.settled).toBe(true);
  });

  it('given a decided validation, when the invoice is told as posted, then it has its issued columns, the transaction’s time and the version the load drew', () => {
    const now = new Date('2026-11-28T10:00:00.123Z');
    const state = given();
    const posted = postedInvoice(state.invoice, decideValidation(state), { entryId: 900, now, version: 4 });
    expect(posted).toMatchObject({ id: 5, invoicenumber: 'INV-00005', invoicestatus: 'open', invoicetotal: '120.00', subtotal: '100.00' });
    expect(posted).toMatchObject({ validated_at: now, updated_at: now, version: 4, paid_at: undefined });
    expect(posted.issued_parties).toMatchObject({ seller: { name: 'Seller Ltd' }, buyer: { name: 'Buyer Inc' } });
    const free = given({ lines: [line({ price: '0' })] });
    expect(postedInvoice(free.invoice, decideValidation(free), { entryId: 901, now, version: 2 })).toMatchObject({
      invoicestatus: 'paid',
      paid_at: now,
    });
  });

  describe('refusals', () => {
    it('given books locked up to the invoice date, when validated, then it is refused on lock_date', () => {
      expect(() => decideValidation(given({ lockDate: '2026-11-20' }))).toThrow(
        refusal('validation_failed', 'the books are locked up to 2026-11-20: invoice INV-00005 dated 2026-11-20 cannot be posted'),
      );
    });

    it('given books locked up to the date a request field dated it (a reminder run’s as_of), when validated, then it is refused on that field', () => {
      let thrown: unknown;
      try {
        decideValidation(given({ lockDate: '2026-11-20', dateField: 'as_of', named: 'the fee invoice of INV-00004, level 2' }));
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toMatchObject({
        refusal: 'invoice.lockDatePassed',
        code: 'validation_failed',
        errors: [
          { field: 'as_of', message: expect.stringContaining('the fee invoice of INV-00004, level 2 dated 2026-11-20 cannot be posted') },
        ],
      });
    });

    it('given the lock date refused and the invoice open as well, when validated, then the lock date is named first', () => {
      expect(() => decideValidation(given({ lockDate: '2026-11-30', invoice: draft({ invoicestatus: 'open' }) }))).toThrow(
        refusal('validation_failed', 'the books are locked'),
      );
    });

    it.each([
      ['open', 'it is open'],
      ['paid', 'it is paid'],
      ['cancelled', 'it is cancelled'],
    ] as const)('given an invoice %s, when validated, then it is refused as an invalid state', (status, reason) => {
      expect(() => decideValidation(given({ invoice: draft({ invoicestatus: status }) }))).toThrow(
        refusal('invalid_state', `Invoice INV-00005 cannot be validated: ${reason}`),
      );
    });

    it('given a proforma, when validated, then it is posted as a draft is', () => {
      expect(decideValidation(given({ invoice: draft({ invoicestatus: 'proforma' }) })).invoice.invoicestatus).toBe('open');
    });

    it('given a draft without lines, when validated, then it is refused', () => {
      expect(() => decideValidation(given({ lines: [] }))).toThrow(refusal('invalid_state', 'it has no lines'));
    });
  });

  describe('foreign currency', () => {
    const inEur = (state: Partial<ValidationState> = {}) => given({ invoice: draft({ currency: 'EUR' }), ...state });

    it('given a EUR invoice with no rate of its own and none in the table, when validated, then it is refused naming exchange_rate', () => {
      expect(needsTableRate(draft({ currency: 'EUR' }), 'EUR', 'USD')).toBe(true);
      expect(() => decideValidation(inEur())).toThrow(
        expect.objectContaining({
          code: 'validation_failed',
          errors: [expect.objectContaining({ field: 'exchange_rate', message: expect.stringContaining('the invoice is in EUR') })],
        }),
      );
    });

    it("given a EUR invoice and the table's rate 1.1, when validated, then it posts converted and keeps the rate", () => {
      const effects = decideValidation(inEur({ tableRate: '1.1' }));
      expect(effects.invoice).toMatchObject({ currency: 'EUR', exchange_rate: '1.1', invoicetotal: '120.00' });
      expect(effects.accountingTotal).toBe(132);
      expect(effects.entry.lines[0]).toMatchObject({ account: '1200 Accounts Receivable' });
      expect(effects.entry.lines[0]?.debit.toFixed(2)).toBe('132.00');
    });

    it('given a EUR invoice with a rate of its own, when validated, then it posts at that rate and needs none of the table', () => {
      expect(needsTableRate(draft({ currency: 'EUR', exchange_rate: '1.2' }), 'EUR', 'USD')).toBe(false);
      const effects = decideValidation(inEur({ invoice: draft({ currency: 'EUR', exchange_rate: '1.2' }) }));
      expect(effects.invoice).not.toHaveProperty('exchange_rate');
      expect(effects.accountingTotal).toBe(144);
    });
  });

  describe('credit limit', () => {
    const checked = (c: partners.PartnerCredit, exposure: CreditExposure | null) =>
      given({ exposure }, { checksCredit: true, parties: { records: { organization: profile, partner }, partnerName: null, credit: c } });

    it('given a sale within the limit, when validated, then it is posted', () => {
      expect(decideValidation(checked(credit({ receivable: 300 }), noExposure)).invoice.invoicestatus).toBe('open');
    });

    it('given a sale that takes the exposure past the limit, when validated, then it is refused naming the figures', () => {
      const exposure: CreditExposure = { ...noExposure, committed: [{ invoicetotal: '100.00', currency: 'USD', exchange_rate: null }] };
      expect(() => decideValidation(checked(credit({ receivable: 300 }), exposure))).toThrow(
        refusal(
          'credit_limit_exceeded',
          'Credit limit exceeded for partner 42: balance 300.00 USD + committed 100.00 USD + this invoice 120.00 USD',
        ),
      );
    });

    it('given the same sale with the check overridden, when validated, then it is posted', () => {
      const state = checked(credit({ receivable: 450 }), noExposure);
      expect(decideValidation({ ...state, facts: { ...state.facts, checksCredit: false } }).invoice.invoicestatus).toBe('open');
    });

    it('given a limit in EUR with no rate for EUR, when validated, then it is refused naming exchange_rate', () => {
      expect(() => decideValidation(checked(credit({ currency: 'EUR' }), noExposure))).toThrow(
        refusal('validation_failed', 'The credit limit is in EUR'),
      );
    });
  });

  describe('a credit note', () => {
    it('given a note crediting an invoice within its total, when validated, then it posts the reverse of a sale and returns its goods', () => {
      const effects = decideValidation(given({ invoice: note(), credited: credited() }));
      expect(effects.entry.lines[0]).toMatchObject({ account: '1200 Accounts Receivable' });
      expect(effects.entry.lines[0]?.credit.toFixed(2)).toBe('120.00');
      expect(effects.lines[0]?.stocked).toBe('2');
      expect(effects.tradeDelta).toBe(-120);
    });

    it("given a note in another currency than its invoice's, when validated, then it is refused naming currency", () => {
      expect(() => decideValidation(given({ invoice: note({ currency: 'EUR' }), credited: credited() }))).toThrow(
        refusal('validation_failed', 'currency:'),
      );
    });

    it("given a note whose invoice's currency is taken, then its issued currency is the invoice's", () => {
      expect(validationCurrency(note({ currency: null }), credited(), given().facts.parties)).toBe('USD');
    });

    it('given notes validated before that leave less room than this one, when validated, then it is refused with what is creditable', () => {
      const before = credited({ validatedNotes: [{ invoicenumber: 'CN-0', invoicetotal: '200.00', currency: 'USD' }] });
      expect(() => decideValidation(given({ invoice: note(), credited: before }))).toThrow(
        refusal('credit_exceeds_invoice', 'is still creditable'),
      );
    });

    it('given a note returning more goods than the invoice delivered less what was returned, when validated, then it is refused naming quantity', () => {
      const returned = credited({ returned: [{ product_id: '3', quantity: '3' }] });
      expect(() => decideValidation(given({ invoice: note(), credited: returned }))).toThrow(
        expect.objectContaining({
          code: 'validation_failed',
          errors: [expect.objectContaining({ field: expect.stringContaining('quantity') })],
        }),
      );
    });

    it('given the same return of a product catalog keeps no stock of, when validated, then it is not capped', () => {
      const returned = credited({ returned: [{ product_id: '3', quantity: '3' }] });
      expect(decideValidation(given({ invoice: note(), credited: returned }, { notStocked: ['3'] })).invoice.invoicestatus).toBe('open');
    });

    it('given a note that returns no goods, when validated, then it moves no stock', () => {
      const effects = decideValidation(given({ invoice: note({ restock: false }), credited: credited() }));
      expect(effects.lines[0]?.stocked).toBe('0');
    });
  });
});
