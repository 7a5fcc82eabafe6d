import { dec } from '@bo/kernel';
import {
  allowancesFromRequest,
  checkReverseChargeRates,
  computeDocumentTaxes,
  decideTaxes,
  documentAccounting,
  documentTaxColumns,
  documentTaxFields,
  documentTaxInput,
  exchangeRateProblem,
  kernelAllowances,
  lineAmountColumns,
  lineAmountsUnchanged,
  minorUnitOf,
  storedDocumentTaxes,
  storedTaxContext,
  taxContextFor,
  taxParties,
  toAllowanceChargeRecord,
  toBreakdownRecord,
  type DocumentDefaults,
  type StoredAllowanceCharge,
  type TaxedLine,
} from './document-taxes';
import { AppError } from '@bo/runtime';

/** What a call threw, checked to be the API's refusal. */
function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('nothing was refused');
}

const line = (fields: Partial<TaxedLine> = {}): TaxedLine => ({
  quantity: '2',
  price: '50.00',
  discount: '0',
  tax_rate: '20',
  tax_included: false,
  ...fields,
});

const freight: StoredAllowanceCharge = {
  charge: true,
  amount: '10.00',
  percent: null,
  base_amount: null,
  reason: 'Freight',
  reason_code: null,
  tax_category: 'S',
  tax_rate: '20',
  tax_exemption_reason: null,
  tax_exemption_code: null,
  reverse_charge_rate: null,
};

const lineContext = storedTaxContext({ rounding: null, cash_rounding: null });

describe('allowances and charges as stored', () => {
  test("a request's rows: absent fields null, the reason trimmed (blank: none); none when none are given", () => {
    expect(allowancesFromRequest(undefined)).toEqual([]);
    expect(allowancesFromRequest([{ charge: false, percent: '5', reason: '  ', reason_code: '95', tax_rate: '20' }])).toEqual([
      {
        charge: false,
        amount: null,
        percent: '5',
        base_amount: null,
        reason: null,
        reason_code: '95',
        tax_category: null,
        tax_rate: '20',
        tax_exemption_reason: null,
        tax_exemption_code: null,
        reverse_charge_rate: null,
      },
    ]);
  });

  test("the kernel reads what was asked, never the calculation's `computed` nor the self-assessed rate", () => {
    const stored = { ...freight, reverse_charge_rate: '19', computed: { amount: '99', base_amount: null, tax_category: 'S', tax: '1' } };
    expect(kernelAllowances([stored])).toEqual([
      {
        charge: true,
        amount: '10.00',
        percent: null,
        base_amount: null,
        reason: 'Freight',
        reason_code: null,
        tax_category: 'S',
        tax_rate: '20',
        tax_exemption_reason: null,
        tax_exemption_code: null,
      },
    ]);
  });
});

describe('tax contexts', () => {
  test('a stored document keeps its policy; one stored before policies computes as `line`', () => {
    expect(storedTaxContext({ rounding: 'document', cash_rounding: '0.05' })).toEqual({
      rounding: 'document',
      cash_rounding: '0.05',
      parties: null,
    });
    expect(lineContext).toEqual({ rounding: 'line', cash_rounding: null, parties: null });
  });

  test("cash rounding applies to a document in the organization's own currency only", () => {
    const defaults: DocumentDefaults = {
      currency: 'EUR',
      rounding: 'document',
      cash_rounding: '0.05',
      accounting_currency: 'EUR',
      time_zone: null,
    };
    expect(taxContextFor(defaults, 'EUR').cash_rounding).toBe('0.05');
    expect(taxContextFor(defaults, 'JPY').cash_rounding).toBeNull();
    expect(taxContextFor(defaults, null).cash_rounding).toBeNull();
    expect(taxContextFor(defaults, 'EUR').rounding).toBe('document');
  });

  test("the parties' VAT ids, blank ones as none", () => {
    expect(taxParties({ seller: { vat_id: ' DE1 ' }, buyer: { vat_id: '  ' } })).toEqual({ seller_vat_id: 'DE1', buyer_vat_id: null });
    expect(taxParties({ seller: {}, buyer: { name: 'x' } })).toEqual({ seller_vat_id: null, buyer_vat_id: null });
  });
});

describe('the calculation and its refusals', () => {
  test('documentTaxInput maps stored lines and rows as the kernel reads them (no discount: 0, no category: the default)', () => {
    const input = documentTaxInput({ currency: 'EUR', allowances_charges: [freight] }, [line({ discount: null })], lineContext);
    expect(input.lines[0]).toMatchObject({ discount: '0', tax_category: null, tax_exemption_code: null });
    expect(input).toMatchObject({ currency: 'EUR', rounding: 'line', cash_rounding: null, parties: null });
    expect(input.allowances_charges).toHaveLength(1);
  });

  test('computeDocumentTaxes: the figures, with a charge in its category', () => {
    const doc = computeDocumentTaxes({ currency: 'EUR', allowances_charges: [freight] }, [line()], lineContext);
    expect(doc.totals.tax_exclusive_amount.toFixed(2)).toBe('110.00');
    expect(doc.totals.tax_total.toFixed(2)).toBe('22.00');
    expect(doc.totals.payable_amount.toFixed(2)).toBe('132.00');
  });

  test('a refusal is a 400 naming each field, renamed for a single added line', () => {
    const input = documentTaxInput({ currency: 'EUR', allowances_charges: [] }, [line({ tax_category: 'Z' })], lineContext);
    const err = refusal(() => decideTaxes(input, (f) => f.replace(/^line_items\.\d+\./, '')));
    expect(err.status).toBe(400);
    expect(err.errors).toEqual([{ field: 'tax_rate', message: 'tax_rate: a zero-rated (Z) line has a rate of 0 (BR-Z-05)' }]);
  });

  test('amounts too large to book are refused', () => {
    const input = documentTaxInput(
      { currency: 'EUR', allowances_charges: [] },
      [line({ quantity: '1000000000', price: '9999999' })],
      lineContext,
    );
    expect(refusal(() => decideTaxes(input)).errors?.[0]?.field).toBe('allowances_charges');
  });

  test('reverse_charge_rate belongs to AE rows only, named on each row that has it elsewhere', () => {
    expect(() => checkReverseChargeRates([{ tax_category: 'AE', reverse_charge_rate: '19' }], [])).not.toThrow();
    const err = refusal(() =>
      checkReverseChargeRates([{ tax_category: 'S', reverse_charge_rate: '19' }], [{ tax_category: null, reverse_charge_rate: '7' }]),
    );
    expect(err.errors?.map((e) => e.field)).toEqual(['line_items.0.reverse_charge_rate', 'allowances_charges.0.reverse_charge_rate']);
    expect(err).toMatchObject({ refusal: 'documentTaxes.reverseChargeRateOutsideAe', code: 'validation_failed' });
  });

  test("storedDocumentTaxes: a stored document's taxes; one the rules refuse now is a 400 invalid_state naming them", () => {
    const ok = storedDocumentTaxes(documentTaxInput({ currency: 'EUR', allowances_charges: [] }, [line()], lineContext), 'Invoice X');
    expect(ok.totals.payable_amount.toFixed(2)).toBe('120.00');
    const input = documentTaxInput({ currency: 'EUR', allowances_charges: [] }, [line({ tax_category: 'L', tax_rate: '0' })], lineContext);
    const err = refusal(() => storedDocumentTaxes(input, 'Invoice X'));
    expect([err.status, err.code]).toEqual([400, 'invalid_state']);
    expect(err.message).toMatch(
      /^Invoice X cannot be rendered: .*line_items\.0\.tax_rate: an IGIC \(L\) line has a rate above 0 \(BR-AF-05\)/,
    );
  });
});

describe('stored columns and answers', () => {
  test("a line's amounts with its currency's decimals", () => {
    const doc = computeDocumentTaxes({ currency: 'JPY', allowances_charges: [] }, [line({ price: '333', quantity: '1' })], lineContext);
    expect(lineAmountColumns(doc.lines[0]!, doc.minor_unit)).toEqual({
      tax_category: 'S',
      subtotal: '333',
      tax_amount: '67',
      total: '400',
    });
  });

  test('a stored line is unchanged when its category and amounts equal the computed ones by value', () => {
    const columns = { tax_category: 'S', subtotal: '10.50', tax_amount: '2.42', total: '12.92' };
    expect(lineAmountsUnchanged({ tax_category: 'S', subtotal: '10.5000', tax_amount: '2.4200', total: '12.9200' }, columns)).toBe(true);
    expect(lineAmountsUnchanged({ ...columns, tax_category: 'Z' }, columns)).toBe(false);
    expect(lineAmountsUnchanged({ ...columns, subtotal: '10.51' }, columns)).toBe(false);
    expect(lineAmountsUnchanged({ ...columns, tax_amount: '2.43' }, columns)).toBe(false);
    expect(lineAmountsUnchanged({ ...columns, total: '12.93' }, columns)).toBe(false);
  });

  test('documentTaxColumns and documentTaxFields: what is stored answers as it was computed', () => {
    const doc = computeDocumentTaxes({ currency: 'EUR', allowances_charges: [freight] }, [line()], lineContext);
    const columns = documentTaxColumns(doc, [freight], lineContext);
    expect(columns).toMatchObject({
      subtotal: '110.00',
      tax_amount: '22.00',
      total: '132.00',
      allowance_total: '0.00',
      charge_total: '10.00',
      vat_total: '22.00',
      rounding_amount: '0.00',
      rounding: 'line',
      cash_rounding: null,
    });
    const allowances = JSON.parse(columns.allowances_charges) as StoredAllowanceCharge[];
    expect(allowances[0]?.computed).toEqual({ amount: '10', base_amount: null, tax_category: 'S', tax: '2' });
    const fields = documentTaxFields({
      currency: 'EUR',
      exchange_rate: null,
      rounding: null,
      cash_rounding: null,
      allowances_charges: allowances,
      tax_breakdown: JSON.parse(columns.tax_breakdown),
      allowance_total: columns.allowance_total,
      charge_total: columns.charge_total,
      vat_total: columns.vat_total,
      rounding_amount: columns.rounding_amount,
    });
    expect(fields).toMatchObject({ currency: 'EUR', exchange_rate: null, rounding: 'line', vat_total: 22, charge_total: 10 });
    expect(fields.tax_breakdown).toEqual([
      { tax_category: 'S', tax_rate: 20, taxable_amount: 110, tax_amount: 22, exemption_reason: null, exemption_code: null },
    ]);
    expect(fields.allowances_charges[0]).toMatchObject({ charge: true, amount: 10, tax_category: 'S', tax_rate: 20, tax_amount: 2 });
  });

  test('a row stored before its calculation answers what was asked, its category empty and its VAT 0', () => {
    expect(toAllowanceChargeRecord({ ...freight, tax_category: null, percent: '5', amount: null })).toMatchObject({
      amount: 0,
      percent: 5,
      tax_category: '',
      tax_amount: 0,
    });
    expect(
      toBreakdownRecord({
        tax_category: 'E',
        tax_rate: '0',
        taxable_amount: '10.5',
        tax_amount: '0',
        exemption_reason: 'Medical',
        exemption_code: null,
      }),
    ).toEqual({ tax_category: 'E', tax_rate: 0, taxable_amount: 10.5, tax_amount: 0, exemption_reason: 'Medical', exemption_code: null });
  });
});

describe('currencies', () => {
  test('exchange_rate other than 1 only on a document in another currency than the accounting one', () => {
    expect(exchangeRateProblem('USD', '0.92', 'EUR')).toBeNull();
    expect(exchangeRateProblem('EUR', '1', 'EUR')).toBeNull();
    expect(exchangeRateProblem('EUR', undefined, 'EUR')).toBeNull();
    expect(exchangeRateProblem('EUR', '0.92', 'EUR')).toMatch(/this one is in EUR/);
    expect(exchangeRateProblem('EUR', '0.92', null)).toBeNull();
  });

  test("minor units: the currency's, 2 when unknown", () => {
    expect([minorUnitOf('JPY'), minorUnitOf('EUR'), minorUnitOf('BHD'), minorUnitOf(null)]).toEqual([0, 2, 3, 2]);
  });

  test('documentAccounting: the accounting currency and rate in another currency only, when both are known', () => {
    expect(documentAccounting('USD', 'EUR', '0.92')).toEqual({ currency: 'EUR', exchange_rate: '0.92' });
    expect(documentAccounting('eur', 'EUR', '1')).toBeNull();
    expect(documentAccounting('USD', null, '0.92')).toBeNull();
    expect(documentAccounting('USD', 'EUR', null)).toBeNull();
    expect(documentAccounting(null, 'EUR', '0.92')).toBeNull();
    expect(dec(documentAccounting('USD', 'EUR', '0.9215')!.exchange_rate).toFixed()).toBe('0.9215');
  });
});
