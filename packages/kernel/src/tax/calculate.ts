import { computeLine, dec, Dec, roundTo, sum, type DecimalLike } from '../money';
import { allocate } from './allocate';
import { CATEGORY_RULES, defaultCategory, isVatCategory, type VatCategory } from './categories';
import { minorUnit } from './currencies';
import {
  DEFAULT_ROUNDING,
  type AllowanceChargeInput,
  type AllowanceChargeTaxes,
  type LineTaxes,
  type RoundingPolicy,
  type TaxDocument,
  type TaxDocumentInput,
  type TaxLineInput,
  type VatBreakdown,
} from './document';

/** Decimals of a document's amounts: its currency's minor unit; hundredths without a currency; undefined when the code has none. */
export function documentMinorUnit(currency: string | null): number | undefined {
  if (currency === null) return 2;
  return minorUnit(currency.trim().toUpperCase()) ?? undefined;
}

/**
 * Why `amount` is finer than `currency`'s minor unit allows (1.234 EUR, 100.5 JPY), naming `field`;
 * undefined when it is not. `atLeast` keeps a floor of decimals whatever the currency (a credit limit
 * has always taken cents). A currency the kernel does not know takes 2.
 */
export function finerThanCurrency(field: string, amount: Dec | string | number, currency: string | null, atLeast = 0): string | undefined {
  const places = Math.max(atLeast, documentMinorUnit(currency) ?? 2);
  if (dec(amount).decimalPlaces() <= places) return undefined;
  return `${field} ${dec(amount).toString()} has more decimals than ${currency ?? 'the currency'} has (${places})`;
}

/** The category a line or allowance is taxed in: the one it names, else S for a positive rate and Z for 0. */
export function categoryOf(item: { tax_category?: string | null; tax_rate: Dec | string | number }): VatCategory {
  const named = item.tax_category?.trim();
  if (named) {
    if (!isVatCategory(named)) throw new Error(`unknown VAT category ${named}`);
    return named;
  }
  return defaultCategory(item.tax_rate);
}

export function text(value: string | null | undefined): string | null {
  const t = value?.trim();
  return t ? t : null;
}

interface Group {
  category: VatCategory;
  rate: Dec;
  /** rate / 100 */
  r: Dec;
  lines: number[];
  allowancesCharges: number[];
}

/** (category, rate) with the rate as a number, so 20 and 20.00 are one group. */
export function groupKey(category: VatCategory, rate: Dec): string {
  return `${category} ${rate.toFixed()}`;
}

/**
 * EN 16931's BR-CO-17 as the official validation artefacts test it: a category's VAT is within less
 * than one unit of the currency of its base times its rate rounded to two decimals (the UBL rules
 * test < 1, the CII ones <= 1: the stricter holds for both); at a rate that rounds to 0 %, a VAT that
 * rounds to 0.
 */
export function withinVatTolerance(tax: Dec, base: Dec, rate: Dec): boolean {
  if (rate.toDecimalPlaces(0, Dec.ROUND_HALF_UP).isZero()) return tax.abs().lt(0.5);
  return tax
    .abs()
    .minus(roundTo(base.abs().times(rate).div(100), 2))
    .abs()
    .lt(1);
}

/**
 * The VAT of a category (BT-117) under `line` rounding: what its printed rows (lines, allowances and
 * charges, each rounded on its own) add up to, so BT-110 is the VAT the customer sees and the rows
 * add up to BT-112; where the rows' rounding drifts beyond EN 16931's tolerance (`withinVatTolerance`:
 * hundreds of lines), the category takes `onBase`, its base times its rate, and the rows' difference
 * is BT-114.
 */
export function categoryTaxOfRows(rows: Dec, base: Dec, rate: Dec, onBase: Dec): Dec {
  return withinVatTolerance(rows, base, rate) ? rows : onBase;
}

/**
 * A document's VAT: each line's amounts, each allowance and charge, the VAT breakdown per (category,
 * rate) and the totals, every amount a whole number of the currency's minor unit. The input must be
 * one `validateDocumentTaxes` accepts (`decideDocumentTaxes` checks first); an unknown currency or
 * category throws.
 *
 * Both policies (document.ts) compute the EN 16931 figures the same way: line nets (BT-131); per
 * (category, rate) the base (BT-116) from the nets, allowances and charges; totals as sums
 * (BT-106..BT-112, BT-110 = Σ BT-117, BT-112 = BT-109 + BT-110). They differ in the line nets of
 * tax-inclusive prices and in each category's VAT (BT-117):
 * - `line`: each row as computeLine rounds it alone, and BT-117 is what the category's rows' VAT adds
 *   up to (`categoryTaxOfRows`: within EN 16931's tolerance of base x rate), so the rows add up to
 *   BT-112 and the customer pays what they add up to.
 * - `document`: per (category, rate), the tax-inclusive lines' gross G (each line rounded as
 *   printed) is split once: the category's net is round((G + E + round(E x rate)) / (1 + rate)) - E,
 *   E being the tax-exclusive lines' net, and is shared over those lines in proportion to their gross;
 *   the category's VAT is shared over the rows that make it. Rows then add up to BT-112, except where
 *   no net reproduces a gross exactly: 50 000 JPY at 10 % has a net of 45 454 (VAT 4 545, 49 999) or
 *   45 455 (VAT 4 546, 50 001); the nearer is taken and the unit between it and the gross the
 *   customer saw is BT-114 (never more than one unit per category).
 * Cash rounding then rounds the amount due half-up to a multiple of `cash_rounding`, that too in BT-114.
 */
export function calculateDocumentTaxes(input: TaxDocumentInput): TaxDocument {
  const places = documentMinorUnit(input.currency);
  if (places === undefined) throw new Error(`currency ${String(input.currency)} has no minor unit`);
  const policy = (input.rounding ?? DEFAULT_ROUNDING) as RoundingPolicy;
  const unit = new Dec(10).pow(-places);
  const round = (value: Dec) => roundTo(value, places);
  const acs = input.allowances_charges ?? [];

  const groups = new Map<string, Group>();
  const groupOf = (item: TaxLineInput | AllowanceChargeInput): Group => {
    const rate = dec(item.tax_rate);
    const category = categoryOf({ tax_category: item.tax_category, tax_rate: rate });
    const key = groupKey(category, rate);
    let group = groups.get(key);
    if (!group) {
      group = { category, rate, r: rate.div(100), lines: [], allowancesCharges: [] };
      groups.set(key, group);
    }
    return group;
  };
  const lineGroups = input.lines.map((line, i) => {
    const g = groupOf(line);
    g.lines.push(i);
    return g;
  });
  const acGroups = acs.map((ac, k) => {
    const g = groupOf(ac);
    g.allowancesCharges.push(k);
    return g;
  });

  // Each line on its own, as the `line` policy prints it; `document` keeps its discount, the net of a
  // tax-exclusive price and the gross of a tax-inclusive one, which are the same under both.
  const own = input.lines.map((line, i) => {
    const g = lineGroups[i] as Group;
    return computeLine({ ...line, tax_rate: g.rate }, places);
  });
  const lines: LineTaxes[] = own.map((a, i) => {
    const g = lineGroups[i] as Group;
    return {
      tax_category: g.category,
      tax_rate: g.rate,
      net: a.subtotal,
      tax: a.tax_amount,
      gross: a.total,
      discount_amount: a.discount_amount,
    };
  });

  const acOut: AllowanceChargeTaxes[] = acs.map((ac, k) => {
    const g = acGroups[k] as Group;
    return {
      charge: ac.charge,
      tax_category: g.category,
      tax_rate: g.rate,
      amount: new Dec(0),
      base_amount: null,
      percent: null,
      reason: text(ac.reason),
      reason_code: text(ac.reason_code),
      tax: new Dec(0),
      gross: new Dec(0),
    };
  });

  const breakdown: VatBreakdown[] = [];
  for (const g of groups.values()) {
    const mine = (i: number) => input.lines[i] as TaxLineInput;
    const inclusive = g.lines.filter((i) => mine(i).tax_included);
    const exclusive = g.lines.filter((i) => !mine(i).tax_included);
    const line = (i: number) => lines[i] as LineTaxes;

    if (policy === 'document') {
      const exclusiveNet = sum(exclusive.map((i) => line(i).net));
      const exclusiveTax = round(exclusiveNet.times(g.r));
      if (inclusive.length > 0) {
        const inclusiveGross = sum(inclusive.map((i) => line(i).gross));
        const seen = inclusiveGross.plus(exclusiveNet).plus(exclusiveTax);
        const inclusiveNet = round(seen.div(g.r.plus(1))).minus(exclusiveNet);
        const nets = allocate(
          inclusiveNet,
          inclusive.map((i) => line(i).gross),
          unit,
        );
        inclusive.forEach((i, n) => {
          const l = line(i);
          l.net = nets[n] as Dec;
          l.tax = l.gross.minus(l.net);
        });
      }
      const taxes = allocate(
        exclusiveTax,
        exclusive.map((i) => line(i).net),
        unit,
      );
      exclusive.forEach((i, n) => {
        const l = line(i);
        l.tax = taxes[n] as Dec;
        l.gross = l.net.plus(l.tax);
      });
    }

    const linesNet = sum(g.lines.map((i) => line(i).net));
    for (const k of g.allowancesCharges) {
      const ac = acs[k] as AllowanceChargeInput;
      const out = acOut[k] as AllowanceChargeTaxes;
      if (ac.amount !== null && ac.amount !== undefined) {
        out.amount = dec(ac.amount);
      } else {
        out.percent = dec(ac.percent);
        out.base_amount = ac.base_amount !== null && ac.base_amount !== undefined ? dec(ac.base_amount) : linesNet;
        out.amount = round(out.base_amount.times(out.percent).div(100));
      }
    }
    const signed = (k: number) => {
      const out = acOut[k] as AllowanceChargeTaxes;
      return out.charge ? out.amount : out.amount.neg();
    };
    const taxableAmount = linesNet.plus(sum(g.allowancesCharges.map(signed)));
    const onBase = round(taxableAmount.times(g.r));

    // The VAT each allowance or charge is printed with, signed as it moves the document, and the
    // category's VAT (BT-117): under `line` what its printed rows add up to, under `document` the
    // base times the rate, shared over the rows.
    let taxAmount = onBase;
    let acTaxes: Dec[];
    if (policy === 'line') {
      acTaxes = g.allowancesCharges.map((k) => round(signed(k).times(g.r)));
      taxAmount = categoryTaxOfRows(sum([...g.lines.map((i) => line(i).tax), ...acTaxes]), taxableAmount, g.rate, onBase);
    } else {
      acTaxes = allocate(
        onBase.minus(round(linesNet.times(g.r))),
        g.allowancesCharges.map((k) => signed(k).times(g.r)),
        unit,
      );
    }
    g.allowancesCharges.forEach((k, n) => {
      const out = acOut[k] as AllowanceChargeTaxes;
      const t = acTaxes[n] as Dec;
      out.tax = out.charge ? t : t.neg();
      out.gross = out.amount.plus(out.tax);
    });

    // Rows that state their VAT (a vendor bill made by import keeping its supplier's BT-117,
    // docs/inbound.md) take it as stated, and the category's VAT is what its rows add up to;
    // decideDocumentTaxes admits only a figure the rows' rounding can explain (statedTaxErrors).
    const stated = (value: DecimalLike | null | undefined) => (value === null || value === undefined ? null : dec(value));
    if ([...g.lines.map((i) => mine(i).stated_tax), ...g.allowancesCharges.map((k) => acs[k]?.stated_tax)].some((t) => stated(t))) {
      for (const i of g.lines) {
        const l = line(i);
        l.tax = stated(mine(i).stated_tax) ?? l.tax;
        l.gross = l.net.plus(l.tax);
      }
      for (const k of g.allowancesCharges) {
        const out = acOut[k] as AllowanceChargeTaxes;
        out.tax = stated((acs[k] as AllowanceChargeInput).stated_tax) ?? out.tax;
        out.gross = out.amount.plus(out.tax);
      }
      taxAmount = sum([
        ...g.lines.map((i) => line(i).tax),
        ...g.allowancesCharges.map((k) => {
          const out = acOut[k] as AllowanceChargeTaxes;
          return out.charge ? out.tax : out.tax.neg();
        }),
      ]);
    }

    const items = [
      ...g.lines.map((i) => input.lines[i] as TaxLineInput),
      ...g.allowancesCharges.map((k) => acs[k] as AllowanceChargeInput),
    ];
    const rules = CATEGORY_RULES[g.category];
    const reason = rules.exemption === 'required' ? (items.map((it) => text(it.tax_exemption_reason)).find((t) => t) ?? null) : null;
    const code =
      rules.exemption === 'required'
        ? (items.map((it) => text(it.tax_exemption_code)?.toUpperCase()).find((t) => t) ?? rules.vatex ?? null)
        : null;
    breakdown.push({
      tax_category: g.category,
      tax_rate: g.rate,
      taxable_amount: taxableAmount,
      tax_amount: taxAmount,
      exemption_reason: reason,
      exemption_code: code,
    });
  }

  const lineNetTotal = sum(lines.map((l) => l.net));
  const allowanceTotal = sum(acOut.filter((a) => !a.charge).map((a) => a.amount));
  const chargeTotal = sum(acOut.filter((a) => a.charge).map((a) => a.amount));
  const taxExclusive = lineNetTotal.minus(allowanceTotal).plus(chargeTotal);
  const taxTotal = sum(breakdown.map((b) => b.tax_amount));
  const taxInclusive = taxExclusive.plus(taxTotal);
  const printed = sum(lines.map((l) => l.gross)).plus(sum(acOut.map((a) => (a.charge ? a.gross : a.gross.neg()))));
  const cash = input.cash_rounding !== null && input.cash_rounding !== undefined ? dec(input.cash_rounding) : null;
  const payable = cash ? printed.div(cash).toDecimalPlaces(0, Dec.ROUND_HALF_UP).times(cash) : printed;

  return {
    currency: input.currency === null ? null : input.currency.trim().toUpperCase(),
    minor_unit: places,
    rounding: policy,
    lines,
    allowances_charges: acOut,
    breakdown,
    totals: {
      line_net_total: lineNetTotal,
      allowance_total: allowanceTotal,
      charge_total: chargeTotal,
      tax_exclusive_amount: taxExclusive,
      tax_total: taxTotal,
      tax_inclusive_amount: taxInclusive,
      rounding_amount: payable.minus(taxInclusive),
      payable_amount: payable,
      rounding_from_lines: printed.minus(taxInclusive),
      rounding_to_cash: payable.minus(printed),
    },
  };
}
