import { Dec, dec, type DecimalLike } from '../money';
import { ALLOWANCE_REASON_CODES, CHARGE_REASON_CODES } from './allowance-reasons';
import { calculateDocumentTaxes, categoryOf, documentMinorUnit, groupKey, text, withinVatTolerance } from './calculate';
import { CATEGORY_RULES, VAT_CATEGORIES, isVatCategory, type VatCategory } from './categories';
import { isoCurrency } from './currencies';
import {
  ROUNDING_POLICIES,
  type AllowanceChargeInput,
  type TaxDecision,
  type TaxDocument,
  type TaxDocumentInput,
  type TaxFieldError,
} from './document';
import { vatexCode } from './vatex';

/** How a category is named in a refusal: `a reverse-charge (AE) line`. */
const CATEGORY_WORDS: Readonly<Record<VatCategory, string>> = {
  S: 'standard-rated (S)',
  Z: 'zero-rated (Z)',
  E: 'exempt (E)',
  AE: 'reverse-charge (AE)',
  K: 'intra-community (K)',
  G: 'export (G)',
  O: 'out-of-scope (O)',
  L: 'IGIC (L)',
  M: 'IPSI (M)',
};

/** `an exempt (E)`, `a zero-rated (Z)`. */
function article(words: string): string {
  return `${/^[aeiou]/i.test(words) ? 'an' : 'a'} ${words}`;
}

/** The BR rule families of EN 16931 per category, for the refusals to cite. */
const RULE_PREFIX: Readonly<Record<VatCategory, string>> = { S: 'S', Z: 'Z', E: 'E', AE: 'AE', K: 'IC', G: 'G', O: 'O', L: 'AF', M: 'AG' };

/** The number a field holds: null when it holds none, false when it holds no number. */
function number(value: DecimalLike | null | undefined): Dec | null | false {
  if (value === null || value === undefined) return null;
  try {
    const d = dec(value);
    return d.isFinite() ? d : false;
  } catch {
    return false;
  }
}

function given(value: unknown): boolean {
  return value !== null && value !== undefined;
}

interface Item {
  field: string;
  kind: 'line' | 'allowance' | 'charge';
  category: VatCategory | null;
  rate: Dec | null;
  reason: string | null;
  code: string | null;
}

/** The refusals that need no arithmetic: fields, categories and rates, exemptions, parties. */
function staticErrors(input: TaxDocumentInput): TaxFieldError[] {
  const errors: TaxFieldError[] = [];
  const refuse = (field: string, message: string) => errors.push({ field, message });

  const places = documentMinorUnit(input.currency);
  if (places === undefined) {
    const code = String(input.currency).trim().toUpperCase();
    refuse(
      'currency',
      isoCurrency(code) ? `${code} has no minor unit in ISO 4217: no document is priced in it` : `${code} is no ISO 4217 currency code`,
    );
  }
  if (given(input.rounding) && !(ROUNDING_POLICIES as readonly string[]).includes(String(input.rounding))) {
    refuse('rounding', `rounding is ${ROUNDING_POLICIES.join(' or ')}`);
  }
  if (given(input.cash_rounding)) {
    const cash = number(input.cash_rounding);
    if (!cash || cash.lte(0)) refuse('cash_rounding', 'cash_rounding is an amount above 0');
    else if (places !== undefined && cash.decimalPlaces() > places) {
      refuse('cash_rounding', `cash_rounding is a multiple of the currency's smallest amount (${places} decimals)`);
    }
  }

  const items: Item[] = [];
  const readItem = (
    field: string,
    kind: Item['kind'],
    source: {
      tax_category?: string | null;
      tax_rate: DecimalLike;
      tax_exemption_reason?: string | null;
      tax_exemption_code?: string | null;
    },
  ) => {
    const rate = number(source.tax_rate);
    if (!rate || rate.lt(0)) refuse(`${field}.tax_rate`, 'tax_rate is a percentage, 0 or more');
    const named = text(source.tax_category);
    let category: VatCategory | null = null;
    if (named !== null && !isVatCategory(named)) refuse(`${field}.tax_category`, `tax_category is one of ${VAT_CATEGORIES.join(', ')}`);
    else if (rate && rate.gte(0)) category = categoryOf({ tax_category: named, tax_rate: rate });
    else if (named !== null && isVatCategory(named)) category = named;
    items.push({
      field,
      kind,
      category,
      rate: rate && rate.gte(0) ? rate : null,
      reason: text(source.tax_exemption_reason),
      code: text(source.tax_exemption_code)?.toUpperCase() ?? null,
    });
  };
  input.lines.forEach((line, i) => {
    for (const key of ['quantity', 'price', 'discount'] as const) {
      if (number(line[key]) === false) refuse(`line_items.${i}.${key}`, `${key} is a number`);
    }
    readItem(`line_items.${i}`, 'line', line);
  });
  (input.allowances_charges ?? []).forEach((ac, k) => {
    const field = `allowances_charges.${k}`;
    readItem(field, ac.charge ? 'charge' : 'allowance', ac);
    allowanceChargeErrors(field, ac, places, refuse);
  });

  // A category's rate and exemption, row by row.
  for (const item of items) {
    if (!item.category) continue;
    const rules = CATEGORY_RULES[item.category];
    const what = `${article(CATEGORY_WORDS[item.category])} ${item.kind}`;
    const br = RULE_PREFIX[item.category];
    const n = item.kind === 'line' ? '05' : item.kind === 'allowance' ? '06' : '07';
    if (item.rate && rules.rate === 'positive' && !item.rate.gt(0))
      refuse(`${item.field}.tax_rate`, `${what} has a rate above 0 (BR-${br}-${n})`);
    if (item.rate && rules.rate === 'zero' && !item.rate.isZero())
      refuse(`${item.field}.tax_rate`, `${what} has a rate of 0 (BR-${br}-${n})`);
    if (rules.exemption === 'forbidden') {
      if (item.reason) refuse(`${item.field}.tax_exemption_reason`, `${what} states no exemption reason (BR-${br}-10)`);
      if (item.code) refuse(`${item.field}.tax_exemption_code`, `${what} states no exemption code (BR-${br}-10)`);
      continue;
    }
    if (item.code) {
      const entry = vatexCode(item.code);
      if (!entry) refuse(`${item.field}.tax_exemption_code`, `${item.code} is not in the VATEX code list (BR-CL-22)`);
      else if (entry.category !== item.category) {
        refuse(
          `${item.field}.tax_exemption_code`,
          `${entry.code} (${entry.name}) goes with category ${entry.category}, not ${item.category}`,
        );
      }
    }
    if (item.kind === 'line' && !item.reason && !item.code) {
      refuse(`${item.field}.tax_exemption_reason`, `${what} needs tax_exemption_reason or tax_exemption_code (BR-${br}-10)`);
    }
  }

  // One exemption per category: EN 16931 gives the category one VAT breakdown (BR-E/AE/IC/G/O-01) and it one reason.
  const firstReason = new Map<VatCategory, Item>();
  const firstCode = new Map<VatCategory, Item>();
  for (const item of items) {
    if (!item.category || CATEGORY_RULES[item.category].exemption !== 'required') continue;
    const category = item.category;
    for (const [key, map, value] of [
      ['tax_exemption_reason', firstReason, item.reason],
      ['tax_exemption_code', firstCode, item.code],
    ] as const) {
      if (!value) continue;
      const first = map.get(category);
      if (!first) map.set(category, item);
      else if ((key === 'tax_exemption_reason' ? first.reason : first.code) !== value) {
        const theirs = key === 'tax_exemption_reason' ? first.reason : first.code;
        refuse(
          `${item.field}.${key}`,
          `one document states one ${key} per category: ${first.field} gives ${category} "${theirs}" (BR-${RULE_PREFIX[category]}-01)`,
        );
      }
    }
  }
  // An exempt allowance or charge on a document with no line of its category: the breakdown still needs a reason.
  for (const item of items) {
    if (item.kind === 'line' || !item.category || CATEGORY_RULES[item.category].exemption !== 'required') continue;
    if (!firstReason.has(item.category) && !firstCode.has(item.category)) {
      refuse(
        `${item.field}.tax_exemption_reason`,
        `${article(CATEGORY_WORDS[item.category])} ${item.kind} needs an exemption reason: give tax_exemption_reason or tax_exemption_code here or on a line of the category (BR-${RULE_PREFIX[item.category]}-10)`,
      );
      firstReason.set(item.category, item);
    }
  }

  // O excludes every other category (BR-O-11..14).
  const other = items.find((it) => it.category && it.category !== 'O');
  if (other?.category) {
    for (const item of items.filter((it) => it.category === 'O')) {
      refuse(
        `${item.field}.tax_category`,
        `O (outside the scope of VAT) excludes every other category from the document, and ${other.field} is ${other.category} (BR-O-11..14)`,
      );
    }
  }

  // The VAT identifiers the categories need.
  if (input.parties) {
    for (const [party, field, label] of [
      ['seller_vat_id', 'seller.vat_id', "seller's"],
      ['buyer_vat_id', 'buyer.vat_id', "buyer's"],
    ] as const) {
      if (text(input.parties[party])) continue;
      const needing = items.find((it) => it.category && CATEGORY_RULES[it.category][party]);
      if (needing?.category) {
        const what = `${article(CATEGORY_WORDS[needing.category])} ${needing.kind}`;
        refuse(field, `${what} (${needing.field}) needs the ${label} VAT id (BR-${RULE_PREFIX[needing.category]}-02)`);
      }
    }
  }
  return errors;
}

function allowanceChargeErrors(
  field: string,
  ac: AllowanceChargeInput,
  places: number | undefined,
  refuse: (field: string, message: string) => void,
): void {
  const what = ac.charge ? 'a charge' : 'an allowance';
  if (!text(ac.reason) && !text(ac.reason_code))
    refuse(`${field}.reason`, `${what} states its reason or reason_code (BR-${ac.charge ? '38' : '33'})`);
  const code = text(ac.reason_code);
  if (code && !(ac.charge ? CHARGE_REASON_CODES : ALLOWANCE_REASON_CODES).has(code)) {
    refuse(
      `${field}.reason_code`,
      `${code} is not ${ac.charge ? 'a charge reason code (UNCL 7161, BR-CL-20)' : 'an allowance reason code (UNCL 5189, BR-CL-19)'}`,
    );
  }
  const amountIn = (key: 'amount' | 'base_amount', value: DecimalLike | null | undefined) => {
    const d = number(value);
    if (d === false) refuse(`${field}.${key}`, `${key} is a number`);
    if (!d) return;
    if (d.lt(0)) refuse(`${field}.${key}`, `${key} is 0 or more (charge says which way it goes)`);
    else if (places !== undefined && d.decimalPlaces() > places)
      refuse(`${field}.${key}`, `${key} has at most ${places} decimals in this currency`);
  };
  if (given(ac.amount) && given(ac.percent)) refuse(`${field}.percent`, `${what} gives amount or percent, not both`);
  else if (!given(ac.amount) && !given(ac.percent))
    refuse(`${field}.amount`, `${what} gives its amount, or a percent of a base (BR-${ac.charge ? '36' : '31'})`);
  if (given(ac.base_amount) && !given(ac.percent)) refuse(`${field}.base_amount`, 'base_amount goes with percent');
  amountIn('amount', ac.amount);
  amountIn('base_amount', ac.base_amount);
  if (given(ac.percent)) {
    const p = number(ac.percent);
    if (!p || p.lt(0) || (!ac.charge && p.gt(100))) refuse(`${field}.percent`, `percent is from 0 to ${ac.charge ? 'any' : '100'}`);
  }
}

/** Refusals once the amounts are known: an allowance may not take a category's base below zero. */
function amountErrors(doc: TaxDocument): TaxFieldError[] {
  const errors: TaxFieldError[] = [];
  for (const b of doc.breakdown) {
    if (!b.taxable_amount.isNegative()) continue;
    const key = groupKey(b.tax_category, b.tax_rate);
    const k = doc.allowances_charges.findIndex((a) => !a.charge && groupKey(a.tax_category, a.tax_rate) === key);
    const lines = doc.lines.filter((l) => groupKey(l.tax_category, l.tax_rate) === key);
    const net = lines.reduce((acc, l) => acc.plus(l.net), new Dec(0));
    errors.push({
      field: `allowances_charges.${k}.amount`,
      message: `the allowances of ${b.tax_category} ${b.tax_rate.toFixed()} % take its base below 0: the lines of that category and rate come to ${net.toFixed(doc.minor_unit)}`,
    });
  }
  return errors;
}

/** Whether a row states its VAT (stated_tax). */
const states = (row: { stated_tax?: DecimalLike | null }) => given(row.stated_tax);

/**
 * Stated VAT (TaxLineInput.stated_tax) before any arithmetic: an amount in the currency's minor
 * unit, on a tax-exclusive line, and given for every row of its category and rate or for none, so a
 * category's VAT is either the one stated or the one computed.
 */
function statedTaxShapeErrors(input: TaxDocumentInput): TaxFieldError[] {
  const acs = input.allowances_charges ?? [];
  if (!input.lines.some(states) && !acs.some(states)) return [];
  const errors: TaxFieldError[] = [];
  const places = documentMinorUnit(input.currency) ?? 2;
  const rows = [
    ...input.lines.map((row, i) => ({ field: `line_items.${i}`, row, inclusive: row.tax_included })),
    ...acs.map((row, k) => ({ field: `allowances_charges.${k}`, row, inclusive: false })),
  ];
  const byGroup = new Map<string, typeof rows>();
  for (const r of rows) {
    const stated = number(r.row.stated_tax);
    if (stated === false || (stated && stated.decimalPlaces() > places)) {
      errors.push({ field: `${r.field}.stated_tax`, message: `stated_tax is an amount with at most ${places} decimals` });
    }
    if (stated && r.inclusive) {
      errors.push({ field: `${r.field}.stated_tax`, message: 'stated_tax goes with a tax-exclusive price (tax_included false)' });
    }
    const key = groupKey(categoryOf({ tax_category: r.row.tax_category, tax_rate: r.row.tax_rate }), dec(r.row.tax_rate));
    byGroup.set(key, [...(byGroup.get(key) ?? []), r]);
  }
  for (const [key, members] of byGroup) {
    const first = members.find((m) => states(m.row));
    const missing = members.find((m) => !states(m.row));
    if (first && missing) {
      errors.push({
        field: `${missing.field}.stated_tax`,
        message: `the VAT of ${key} % is stated row by row (${first.field}.stated_tax): every row of that category and rate states it`,
      });
    }
  }
  return errors;
}

/**
 * A category's stated VAT against the one its rows compute under the document's policy: admitted
 * when the difference is what rounding alone gives, at most one minor unit per row of the category
 * (each row rounded on its own, from a net rounded or not), and within EN 16931's tolerance of its
 * base times its rate (BR-CO-17, withinVatTolerance). Anything more is no rounding: refused.
 */
function statedTaxAmountErrors(input: TaxDocumentInput, doc: TaxDocument): TaxFieldError[] {
  const acs = input.allowances_charges ?? [];
  if (!input.lines.some(states) && !acs.some(states)) return [];
  const computed = calculateDocumentTaxes({
    ...input,
    lines: input.lines.map((l) => ({ ...l, stated_tax: null })),
    allowances_charges: acs.map((a) => ({ ...a, stated_tax: null })),
  });
  const unit = new Dec(10).pow(-doc.minor_unit);
  const errors: TaxFieldError[] = [];
  doc.breakdown.forEach((b, n) => {
    const own = computed.breakdown[n];
    if (!own || own.tax_amount.equals(b.tax_amount)) return;
    const key = groupKey(b.tax_category, b.tax_rate);
    const lineAt = doc.lines.findIndex((l) => groupKey(l.tax_category, l.tax_rate) === key);
    const acAt = doc.allowances_charges.findIndex((a) => groupKey(a.tax_category, a.tax_rate) === key);
    const field = lineAt >= 0 ? `line_items.${lineAt}.stated_tax` : `allowances_charges.${acAt}.stated_tax`;
    const rows =
      doc.lines.filter((l) => groupKey(l.tax_category, l.tax_rate) === key).length +
      doc.allowances_charges.filter((a) => groupKey(a.tax_category, a.tax_rate) === key).length;
    const difference = b.tax_amount.minus(own.tax_amount);
    if (difference.abs().gt(unit.times(rows)) || !withinVatTolerance(b.tax_amount, b.taxable_amount, b.tax_rate)) {
      errors.push({
        field,
        message: `the VAT stated for ${key} % is ${b.tax_amount.toFixed(doc.minor_unit)}, its ${rows} row(s) compute ${own.tax_amount.toFixed(doc.minor_unit)}: more than their rounding explains (one ${unit.toFixed()} per row)`,
      });
    }
  });
  return errors;
}

/** Every refusal EN 16931 and this model have for a document's taxes, each naming its field; none when it is fine. */
export function validateDocumentTaxes(input: TaxDocumentInput): TaxFieldError[] {
  const decision = decideDocumentTaxes(input);
  return decision.ok ? [] : decision.errors;
}

/** The document's taxes, or why not: refusals named by field, as the API answers them with a 400. Never throws. */
export function decideDocumentTaxes(input: TaxDocumentInput): TaxDecision {
  const errors = staticErrors(input);
  if (errors.length === 0) errors.push(...statedTaxShapeErrors(input));
  if (errors.length > 0) return { ok: false, errors };
  const document = calculateDocumentTaxes(input);
  const late = [...amountErrors(document), ...statedTaxAmountErrors(input, document)];
  return late.length > 0 ? { ok: false, errors: late } : { ok: true, document };
}
