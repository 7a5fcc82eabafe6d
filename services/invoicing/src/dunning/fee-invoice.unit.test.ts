import { AppError } from '@bo/runtime';
import { computeDocumentTaxes } from '@bo/billing';
import { accountsFor } from '../domain/journal';
import {
  checkFeeTax,
  DEFAULT_FEE_TAX,
  FEE_ACCOUNT,
  feeAccountProblem,
  feeInvoice,
  feeTaxFromRequest,
  type FeeInvoicePlan,
  type FeeTax,
} from './fee-invoice';

const plan = (over: Partial<FeeInvoicePlan> = {}): FeeInvoicePlan => ({
  partner_id: 3,
  currency: 'EUR',
  as_of: '2026-02-21',
  tradeaccount: null,
  exchange_rate: null,
  invoicenumber: 'INV-00007',
  level: 2,
  fee: '5.00',
  tax: DEFAULT_FEE_TAX,
  account: FEE_ACCOUNT,
  ...over,
});
const totalOf = (made: ReturnType<typeof feeInvoice>) =>
  computeDocumentTaxes({ currency: 'EUR', allowances_charges: [] }, made.lines, { rounding: 'line', cash_rounding: null, parties: null });
/** The fields a refusal names. */
function refusedFields(tax: FeeTax): string[] {
  try {
    checkFeeTax(tax);
    return [];
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return (err.errors ?? []).map((e) => e.field);
  }
}

describe('feeInvoice', () => {
  it('given a level 2 letter with a 5.00 fee, then a customer invoice to its partner in its currency, dated and due on the letter, one line naming the invoice and level', () => {
    const made = feeInvoice(plan(), 41);
    expect(made.values).toMatchObject({
      invoicetype: 'invoiceout',
      partner_id: 3,
      invoicestatus: 'draft',
      invoicedue: '2026-02-21',
      currency: 'EUR',
      chartofaccounts: FEE_ACCOUNT,
      tradeaccount: null,
      sourcetype: 'dunning_letter',
      sourceid: '41',
      sourcenumber: 'INV-00007',
    });
    expect(made.values.invoicedatetime.toISOString()).toBe('2026-02-21T00:00:00.000Z');
    expect(made.lines).toEqual([
      expect.objectContaining({
        product_name: 'Reminder fee: INV-00007, level 2',
        quantity: '1',
        price: '5.00',
        tax_category: 'E',
        tax_rate: '0',
        catalog_checked: false,
      }),
    ]);
  });

  it('given the default tax (exempt), then the invoice totals the fee with no VAT', () => {
    const doc = totalOf(feeInvoice(plan(), 41));
    expect([doc.totals.payable_amount.toFixed(2), doc.breakdown.map((b) => [b.tax_category, b.tax_amount.toFixed(2)])]).toEqual([
      '5.00',
      [['E', '0.00']],
    ]);
  });

  it('given a standard-rated fee, then the VAT is carved out of the fee: the customer pays what the letter states', () => {
    // By hand: 5.00 / 1.19 = 4.2016… → 4.20 net, 0.80 VAT, 5.00 in all.
    const tax = feeTaxFromRequest({ category: 'S', rate: '19' });
    const doc = totalOf(feeInvoice(plan({ tax }), 41));
    expect([doc.totals.payable_amount.toFixed(2), doc.totals.tax_exclusive_amount.toFixed(2)]).toEqual(['5.00', '4.20']);
  });

  it('books the fee to the fee account against the reminded invoice’s receivable', () => {
    const { values } = feeInvoice(plan({ tradeaccount: '1210 EU' }), 41);
    expect(accountsFor(values.invoicetype, values)).toMatchObject({ trade: '1210 EU', counterpart: FEE_ACCOUNT });
  });

  it('given the organization’s fee_account, then the fee is income of that account', () => {
    const { values } = feeInvoice(plan({ account: '8400 Mahngebühren' }), 41);
    expect(accountsFor(values.invoicetype, values)).toMatchObject({ trade: '1200 Accounts Receivable', counterpart: '8400 Mahngebühren' });
  });
});

describe('feeAccountProblem', () => {
  it('given an income account of any name, then it takes the fees', () => {
    expect([FEE_ACCOUNT, '8400 Mahngebühren', '4000 Sales Revenue'].map(feeAccountProblem)).toEqual([null, null, null]);
  });

  it('given a blank name or an account the journal keeps for itself, then it is refused with the reason', () => {
    expect(feeAccountProblem('  ')).toMatch(/must name an income account/);
    for (const kept of [
      '1200 Accounts Receivable',
      '2000 Accounts Payable',
      '2200 Tax Payable',
      '1400 Tax Receivable',
      '7600 Rounding Differences',
      'Bank',
    ])
      expect(feeAccountProblem(kept)).toMatch(/kept by the journal/);
  });
});

describe('checkFeeTax', () => {
  it('accepts the default, O with its reason or code, and S with a rate', () => {
    expect(refusedFields(DEFAULT_FEE_TAX)).toEqual([]);
    expect(refusedFields(feeTaxFromRequest({ category: 'O', rate: '0', exemption_code: 'vatex-eu-o' }))).toEqual([]);
    expect(refusedFields(feeTaxFromRequest({ category: 'S', rate: '20' }))).toEqual([]);
  });

  it('refuses by the category’s EN 16931 rules, naming the fee_tax field', () => {
    expect(refusedFields(feeTaxFromRequest({ category: 'E', rate: '0' }))).toEqual(['fee_tax.exemption_reason']);
    expect(refusedFields(feeTaxFromRequest({ category: 'E', rate: '7', exemption_reason: 'x' }))).toEqual(['fee_tax.rate']);
    expect(refusedFields(feeTaxFromRequest({ category: 'S', rate: '0' }))).toEqual(['fee_tax.rate']);
    expect(refusedFields(feeTaxFromRequest({ category: 'S', rate: '19', exemption_reason: 'x' }))).toEqual(['fee_tax.exemption_reason']);
    expect(refusedFields(feeTaxFromRequest({ category: 'E', rate: '0', exemption_code: 'VATEX-EU-O' }))).toEqual([
      'fee_tax.exemption_code',
    ]);
  });
});
