import { Dec, roundTo, sum, type TaxDocument, type VatCategory } from '@bo/kernel';

/**
 * The calculation rules of EN 16931 restated from their text (release 1.3.16 of the validation
 * artefacts), as a test oracle for calculateDocumentTaxes: each rule that relates the amounts of a
 * document, checked exactly but BR-CO-17 under `line` rounding, checked with the artefacts' tolerance
 * (less than one unit). "Rounded to two decimals" (BR-CO-17) and "at most two decimals"
 * (BR-DEC-*) read as the currency's minor unit; for a currency with two decimals that is the rule's letter.
 * Returns the rules broken, with the figures; none for a document that keeps them all.
 */
export function brokenCalculationRules(doc: TaxDocument): string[] {
  const broken: string[] = [];
  const t = doc.totals;
  const m = doc.minor_unit;
  const same = (rule: string, actual: Dec, expected: Dec) => {
    if (!actual.eq(expected)) broken.push(`${rule}: ${actual.toFixed()} should be ${expected.toFixed()}`);
  };
  const allowances = doc.allowances_charges.filter((a) => !a.charge);
  const charges = doc.allowances_charges.filter((a) => a.charge);

  same('BR-CO-10 BT-106 = Σ BT-131', t.line_net_total, sum(doc.lines.map((l) => l.net)));
  same('BR-CO-11 BT-107 = Σ BT-92', t.allowance_total, sum(allowances.map((a) => a.amount)));
  same('BR-CO-12 BT-108 = Σ BT-99', t.charge_total, sum(charges.map((a) => a.amount)));
  same(
    'BR-CO-13 BT-109 = BT-106 - BT-107 + BT-108',
    t.tax_exclusive_amount,
    t.line_net_total.minus(t.allowance_total).plus(t.charge_total),
  );
  same('BR-CO-14 BT-110 = Σ BT-117', t.tax_total, sum(doc.breakdown.map((b) => b.tax_amount)));
  same('BR-CO-15 BT-112 = BT-109 + BT-110', t.tax_inclusive_amount, t.tax_exclusive_amount.plus(t.tax_total));
  same('BR-CO-16 BT-115 = BT-112 - BT-113 + BT-114', t.payable_amount, t.tax_inclusive_amount.minus(0).plus(t.rounding_amount));
  for (const b of doc.breakdown) {
    const where = `${b.tax_category} ${b.tax_rate.toFixed()} %`;
    const onBase = roundTo(b.taxable_amount.times(b.tax_rate).div(100), m);
    if (doc.rounding === 'document') same(`BR-CO-17 BT-117 = BT-116 x BT-119 / 100 (${where})`, b.tax_amount, onBase);
    else {
      // The artefacts' tolerance: less than one unit from the base times the rate, rounded to two decimals.
      const expected = roundTo(b.taxable_amount.abs().times(b.tax_rate).div(100), 2);
      if (!b.tax_amount.abs().minus(expected).abs().lt(1))
        broken.push(`BR-CO-17 BT-117 (${where}): ${b.tax_amount.toFixed()} is 1 or more from ${expected.toFixed()}`);
    }
  }
  if (doc.lines.length > 0 && doc.breakdown.length === 0) broken.push('BR-CO-18: no VAT breakdown');

  const family: Record<VatCategory, string> = { S: 'S', Z: 'Z', E: 'E', AE: 'AE', K: 'IC', G: 'G', O: 'O', L: 'AF', M: 'AG' };
  const perRate: VatCategory[] = ['S', 'L', 'M'];
  const used = new Set([...doc.lines.map((l) => l.tax_category), ...doc.allowances_charges.map((a) => a.tax_category)]);
  for (const category of used) {
    const rule = family[category];
    const breakdowns = doc.breakdown.filter((b) => b.tax_category === category);
    if (perRate.includes(category) ? breakdowns.length === 0 : breakdowns.length !== 1) {
      broken.push(`BR-${rule}-01: ${breakdowns.length} VAT breakdowns of ${category}`);
    }
    for (const b of breakdowns) {
      const fits = (x: { tax_category: VatCategory; tax_rate: Dec }) =>
        x.tax_category === category && (!perRate.includes(category) || x.tax_rate.eq(b.tax_rate));
      const base = sum(doc.lines.filter(fits).map((l) => l.net))
        .plus(sum(charges.filter(fits).map((a) => a.amount)))
        .minus(sum(allowances.filter(fits).map((a) => a.amount)));
      same(`BR-${rule}-08 BT-116 (${category} ${b.tax_rate.toFixed()} %)`, b.taxable_amount, base);
      if (!perRate.includes(category)) same(`BR-${rule}-09 BT-117 (${category})`, b.tax_amount, new Dec(0));
      const exempted = Boolean(b.exemption_reason) || Boolean(b.exemption_code);
      const needsReason = ['E', 'AE', 'K', 'G', 'O'].includes(category);
      if (exempted !== needsReason) broken.push(`BR-${rule}-10: ${category} ${needsReason ? 'without' : 'with'} an exemption reason`);
    }
  }
  if (doc.breakdown.some((b) => b.tax_category === 'O') && doc.breakdown.length > 1) broken.push('BR-O-11: O beside other breakdowns');

  const amounts: [string, Dec | null][] = [
    ...doc.lines.map((l, i): [string, Dec] => [`BR-DEC-23 BT-131 line ${i}`, l.net]),
    ...doc.allowances_charges.flatMap((a, k): [string, Dec | null][] => [
      [`BR-DEC-01/05 BT-92/99 ${k}`, a.amount],
      [`BR-DEC-02/06 BT-93/100 ${k}`, a.base_amount],
    ]),
    ['BR-DEC-09 BT-106', t.line_net_total],
    ['BR-DEC-10 BT-107', t.allowance_total],
    ['BR-DEC-11 BT-108', t.charge_total],
    ['BR-DEC-12 BT-109', t.tax_exclusive_amount],
    ['BR-DEC-13 BT-110', t.tax_total],
    ['BR-DEC-14 BT-112', t.tax_inclusive_amount],
    ['BR-DEC-17 BT-114', t.rounding_amount],
    ['BR-DEC-18 BT-115', t.payable_amount],
    ...doc.breakdown.flatMap((b): [string, Dec][] => [
      [`BR-DEC-19 BT-116 ${b.tax_category} ${b.tax_rate.toFixed()}`, b.taxable_amount],
      [`BR-DEC-20 BT-117 ${b.tax_category} ${b.tax_rate.toFixed()}`, b.tax_amount],
    ]),
  ];
  for (const [rule, amount] of amounts) {
    if (amount && amount.decimalPlaces() > m) broken.push(`${rule}: ${amount.toFixed()} has more than ${m} decimals`);
  }
  return broken;
}
