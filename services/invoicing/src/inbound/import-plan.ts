import type { ReceivedInvoice, ReceivedLine, RuleFinding } from '@bo/documents';
import {
  dec,
  decideDocumentTaxes,
  roundTo,
  vatInAccountingCurrency,
  type CategoryTax,
  type Dec,
  type RoundingPolicy,
  type TaxDocument,
} from '@bo/kernel';

/**
 * The pure decisions of an e-invoice import (issue 44): which supplier the document names, which
 * products its lines are, what bill it makes, and whether it may make one at all. State in, decision
 * out; the handler loads the facts, calls `decideImport`, and stores what it says. Nothing here is
 * ever adjusted to fit: a figure the bill cannot reproduce exactly is a review reason naming it.
 */

export type ImportStatus = 'bill_created' | 'needs_review' | 'rejected';

/** A partner as the supplier match sees it. */
export interface SupplierCandidate {
  partner_id: number;
  vat_id?: string | null;
  peppol_id?: string | null;
  legal_registration_id?: string | null;
}

/** Identifiers compare without spaces, dots, dashes and case ("DE 123.456.789" = "de123456789"). */
export const normalId = (id: string | undefined | null): string => (id ?? '').replace(/[\s.\-/]/g, '').toUpperCase();

/** A Peppol endpoint as `<scheme>:<id>`, the form partners keep (`0208:0123456789`). */
export const endpointKey = (endpoint: { id: string; scheme?: string } | undefined): string | undefined =>
  endpoint ? normalId(endpoint.scheme ? `${endpoint.scheme}:${endpoint.id}` : endpoint.id) : undefined;

/** The supplier an import bills: matched by an identifier, or chosen by the reviewer (`accept`). */
export type SupplierMatch =
  | { partner_id: number; by: 'vat_id' | 'endpoint_id' | 'legal_registration_id' | 'chosen' | 'created' }
  | { partner_id: undefined; reason?: string };

/**
 * The supplier the document names: by VAT id (BT-31), else by endpoint id (BT-34), else by legal
 * registration id (BT-30); the first identifier the document states that matches exactly one
 * partner decides. Two partners sharing the deciding identifier is ambiguous: no match, with the reason.
 */
export function matchSupplier(seller: ReceivedInvoice['seller'], candidates: readonly SupplierCandidate[]): SupplierMatch {
  const keys = [
    ['vat_id', normalId(seller.vat_id), (c: SupplierCandidate) => normalId(c.vat_id)],
    ['endpoint_id', endpointKey(seller.endpoint_id) ?? '', (c: SupplierCandidate) => normalId(c.peppol_id)],
    ['legal_registration_id', normalId(seller.legal_registration_id?.id), (c: SupplierCandidate) => normalId(c.legal_registration_id)],
  ] as const;
  for (const [by, key, of] of keys) {
    if (key === '') continue;
    const found = candidates.filter((c) => of(c) === key);
    if (found.length === 1) return { partner_id: found[0]!.partner_id, by };
    if (found.length > 1) {
      return {
        partner_id: undefined,
        reason: `${found.length} partners share the supplier's ${by} ${key} (partners ${found.map((c) => c.partner_id).join(', ')})`,
      };
    }
  }
  return { partner_id: undefined };
}

/** A line's product key in the per-supplier mapping: the seller's item id (BT-155), else the GTIN or other standard id (BT-157). */
export function productKeys(line: ReceivedLine): string[] {
  return [
    ...(line.seller_item_id ? [`seller:${line.seller_item_id}`] : []),
    ...(line.standard_id ? [`standard:${line.standard_id.scheme ?? ''}:${line.standard_id.id}`] : []),
  ];
}

/** A bill line as the invoice creation takes it (lineItemInput), with the document's figures kept. */
export interface BillLine {
  product_id: string;
  product_name: string;
  description?: string;
  quantity: string;
  /** BT-146 per one unit (BT-149 divided out). */
  price: string;
  /** Percent, when the line's allowances (BG-27) are exactly one percentage of qty × price. */
  discount?: string;
  tax_rate: string;
  tax_category: string;
  tax_exemption_reason?: string;
  tax_exemption_code?: string;
  tax_included: false;
  /** BT-130 */
  unit?: string;
  /** The line's share of the document's VAT for its category when the bill keeps it (keepStatedVat). */
  stated_tax?: string;
}

export interface BillAllowanceCharge {
  charge: boolean;
  amount: string;
  reason?: string;
  reason_code?: string;
  tax_category: string;
  tax_rate: string;
  tax_exemption_reason?: string;
  tax_exemption_code?: string;
  /** The row's VAT when the bill keeps its category's as the document states it (keepStatedVat). */
  stated_tax?: string;
}

const num = (text: string | undefined): Dec | undefined => {
  if (text === undefined || !/^-?\d+(\.\d*)?$/.test(text.trim())) return undefined;
  return dec(text.trim());
};

/**
 * The bill's lines from the document's, each with its product from the mapping; every line the bill
 * cannot carry as the document states it is a reason (the line named by its BT-126).
 */
export function billLines(
  invoice: ReceivedInvoice,
  productFor: (line: ReceivedLine) => string | undefined,
): { lines: BillLine[]; reasons: string[] } {
  const reasons: string[] = [];
  const lines: BillLine[] = [];
  const exemption = (category: string) => invoice.vat_breakdown.find((b) => b.category === category);
  for (const l of invoice.lines) {
    const at = `line ${l.id}`;
    const quantity = num(l.quantity);
    const price = num(l.net_price);
    const base = num(l.base_quantity) ?? dec(1);
    if (!quantity || !price || base.isZero()) {
      reasons.push(`${at}: quantity ${l.quantity} or net price ${l.net_price} is not a number the bill can carry`);
      continue;
    }
    if (quantity.lte(0)) reasons.push(`${at}: quantity ${l.quantity} is not positive; a bill line takes a positive quantity`);
    if (price.lt(0)) reasons.push(`${at}: net price ${l.net_price} is negative`);
    const unitPrice = price.div(base);
    const gross = quantity.times(unitPrice);
    const allowances = l.allowances_charges.filter((a) => !a.charge).reduce((s, a) => s.plus(dec(a.amount)), dec(0));
    const charges = l.allowances_charges.filter((a) => a.charge).reduce((s, a) => s.plus(dec(a.amount)), dec(0));
    if (!charges.isZero()) reasons.push(`${at}: a line charge of ${charges.toFixed()} (BG-28) has no place on a bill line`);
    const discount = allowances.isZero() || gross.isZero() ? undefined : allowances.div(gross).times(100);
    const net = num(l.net_amount);
    const computed = gross.minus(allowances).plus(charges);
    if (!net || !computed.toDecimalPlaces(2).eq(net)) {
      reasons.push(
        `${at}: quantity × net price less allowances is ${computed.toDecimalPlaces(2).toFixed(2)}, the document says ${l.net_amount} (BT-131)`,
      );
    }
    const product = productFor(l);
    if (product === undefined) {
      const keys = productKeys(l);
      reasons.push(
        `${at}: no product mapped for ${keys.length > 0 ? keys.join(' or ') : `"${l.name ?? ''}" (no seller item id or standard id)`}`,
      );
    }
    const category = l.vat_category ?? '';
    const vat = exemption(category);
    lines.push({
      product_id: product ?? '',
      product_name: l.name ?? l.description ?? `Line ${l.id}`,
      ...(l.description ? { description: l.description } : {}),
      quantity: quantity.toFixed(),
      price: unitPrice.toFixed(),
      ...(discount ? { discount: discount.toFixed() } : {}),
      tax_rate: dec(l.vat_rate ?? '0').toFixed(),
      tax_category: category,
      ...(vat?.exemption_reason ? { tax_exemption_reason: vat.exemption_reason } : {}),
      ...(vat?.exemption_reason_code ? { tax_exemption_code: vat.exemption_reason_code } : {}),
      tax_included: false,
      ...(l.unit ? { unit: l.unit } : {}),
    });
  }
  return { lines, reasons };
}

/** The document's allowances and charges (BG-20, BG-21) as the bill takes them. */
export function billAllowancesCharges(invoice: ReceivedInvoice): BillAllowanceCharge[] {
  return invoice.allowances_charges.map((a) => {
    const vat = invoice.vat_breakdown.find((b) => b.category === a.vat_category);
    return {
      charge: a.charge,
      amount: dec(a.amount).toFixed(),
      ...(a.reason ? { reason: a.reason } : {}),
      ...(a.reason_code ? { reason_code: a.reason_code } : {}),
      tax_category: a.vat_category ?? '',
      tax_rate: dec(a.vat_rate ?? '0').toFixed(),
      ...(vat?.exemption_reason ? { tax_exemption_reason: vat.exemption_reason } : {}),
      ...(vat?.exemption_reason_code ? { tax_exemption_code: vat.exemption_reason_code } : {}),
    };
  });
}

/** The totals a bill computes, to compare with the document's. */
export interface ComputedTotals {
  line_extension: string;
  tax_exclusive: string;
  tax: string;
  tax_inclusive: string;
}

/** The decimals of an exchange rate the bill stores (numeric(18, 10)). */
const RATE_PLACES = 10;

/**
 * The exchange rate a foreign-currency document's VAT in the accounting currency (BT-111) implies,
 * for the bill to post that VAT as stated: the rate at which the journal's conversion (each
 * category's VAT × rate, rounded to the accounting currency's minor unit, then summed:
 * vatInAccountingCurrency) gives BT-111 exactly. The shortest such rate near BT-111 ÷ BT-110 is
 * chosen (0.92 rather than 0.9200000417), else any found by bisection. Nothing is implied where the
 * document states no BT-111, states it in another currency than the books', is in the books'
 * currency, or has no VAT to divide by: the bill then takes the organization's rate when it is
 * validated, as any bill does. A BT-111 no rate reproduces is a review reason naming it: the VAT
 * the supplier reported to its tax office is never silently posted otherwise.
 */
export function impliedExchangeRate(
  stated: ReceivedInvoice['totals']['tax_accounting'],
  documentCurrency: string,
  accountingCurrency: string | null,
  breakdown: readonly CategoryTax[],
): { rate?: string; reasons: string[] } {
  const books = accountingCurrency?.trim().toUpperCase();
  if (!stated || !books || documentCurrency.trim().toUpperCase() === books) return { reasons: [] };
  if (stated.currency.trim().toUpperCase() !== books) return { reasons: [] };
  const taxTotal = breakdown.reduce((s, b) => s.plus(dec(b.tax_amount)), dec(0));
  const target = dec(stated.amount);
  if (taxTotal.isZero() || !target.gt(0)) return { reasons: [] };
  const gives = (r: Dec) => vatInAccountingCurrency(breakdown, r, books).tax_total;
  const implied = target.div(taxTotal);
  for (let places = 2; places <= RATE_PLACES; places++) {
    const r = roundTo(implied, places);
    if (r.gt(0) && gives(r).eq(target)) return { rate: r.toFixed(), reasons: [] };
  }
  // The converted VAT never falls as the rate rises: bisect for a rate that gives it.
  let [lo, hi] = [dec(0), implied.times(2)];
  const step = dec(10).pow(-RATE_PLACES);
  while (hi.minus(lo).gt(step)) {
    const mid = roundTo(lo.plus(hi).div(2), RATE_PLACES);
    const got = gives(mid.gt(0) ? mid : step);
    if (got.eq(target)) return { rate: mid.toFixed(), reasons: [] };
    if (got.lt(target)) lo = mid;
    else hi = mid;
  }
  const near = roundTo(implied, RATE_PLACES);
  return {
    reasons: [
      `BT-111: the document states ${target.toFixed()} ${books} of VAT, which no one exchange rate gives category by category (${near.toFixed()} gives ${gives(near).toFixed()})`,
    ],
  };
}

/**
 * Each total the bill computes that differs from the document's (BT-106, BT-109, BT-110, BT-112),
 * to the cent, named with both figures and the difference; empty when they agree. Never adjusted.
 */
export function totalDifferences(stated: ReceivedInvoice['totals'], computed: ComputedTotals): string[] {
  const pairs = [
    ['line_extension', 'BT-106', stated.line_extension, computed.line_extension],
    ['tax_exclusive', 'BT-109', stated.tax_exclusive, computed.tax_exclusive],
    ['tax', 'BT-110', stated.tax, computed.tax],
    ['tax_inclusive', 'BT-112', stated.tax_inclusive, computed.tax_inclusive],
  ] as const;
  const found: string[] = [];
  for (const [name, bt, doc, bill] of pairs) {
    const d = num(doc ?? '0') ?? dec(0);
    const diff = dec(bill).minus(d);
    if (!diff.toDecimalPlaces(2).isZero()) {
      found.push(
        `${name} (${bt}): the bill computes ${dec(bill).toFixed(2)}, the document states ${d.toFixed(2)} (difference ${diff.toFixed(2)})`,
      );
    }
  }
  return found;
}

export interface ImportFacts {
  invoice: ReceivedInvoice;
  fatal: readonly RuleFinding[];
  /** An earlier import of the same supplier, number and issue date (not the same bytes). */
  duplicateOf?: { import_id: number; invoice_id: number | null };
  supplier: SupplierMatch;
  /** The organization's `inbound_create_partners`. */
  createPartners: boolean;
  productFor: (line: ReceivedLine) => string | undefined;
}

export type ImportDecision =
  | { kind: 'duplicate'; earlier: { import_id: number; invoice_id: number | null } }
  | { kind: 'rejected'; reasons: string[] }
  | {
      kind: 'needs_review' | 'bill';
      /** The supplier to bill, or `create` a vendor from the document's seller. */
      partner: { partner_id: number } | 'create' | undefined;
      lines: BillLine[];
      allowances_charges: BillAllowanceCharge[];
      reasons: string[];
    };

/**
 * What an import does: a fatal rule → rejected (kept, no bill); the same supplier, number and date
 * imported before → duplicate (nothing made); else a bill plan, held for review while any reason
 * stands (unknown supplier without `inbound_create_partners`, an unmapped product, a line the bill
 * cannot carry). The totals are compared after the bill is computed (totalDifferences).
 */
export function decideImport(f: ImportFacts): ImportDecision {
  if (f.fatal.length > 0) return { kind: 'rejected', reasons: f.fatal.map((r) => `${r.rule}: ${r.message}`) };
  const missing = [
    ...(f.invoice.number ? [] : ['the invoice number (BT-1)']),
    ...(f.invoice.issue_date ? [] : ['the issue date (BT-2)']),
    ...(f.invoice.currency ? [] : ['the currency (BT-5)']),
  ];
  if (missing.length > 0) return { kind: 'rejected', reasons: [`The document has no ${missing.join(', ')}`] };
  if (f.duplicateOf) return { kind: 'duplicate', earlier: f.duplicateOf };
  const reasons: string[] = [];
  let partner: { partner_id: number } | 'create' | undefined;
  if (f.supplier.partner_id !== undefined) partner = { partner_id: f.supplier.partner_id };
  else if (f.supplier.reason) reasons.push(`supplier: ${f.supplier.reason}`);
  else if (f.createPartners) partner = 'create';
  else
    reasons.push(
      `supplier: no partner has the VAT id ${f.invoice.seller.vat_id ?? '(none)'}, endpoint ${endpointKey(f.invoice.seller.endpoint_id) ?? '(none)'} or registration ${f.invoice.seller.legal_registration_id?.id ?? '(none)'}, and inbound_create_partners is off`,
    );
  const { lines, reasons: lineReasons } = billLines(f.invoice, f.productFor);
  reasons.push(...lineReasons);
  if (f.invoice.lines.length === 0) reasons.push('the document has no lines');
  return {
    kind: reasons.length > 0 ? 'needs_review' : 'bill',
    partner,
    lines,
    allowances_charges: billAllowancesCharges(f.invoice),
    reasons,
  };
}

/**
 * The totals the bill computes from its planned lines and allowances, by the kernel's tax rules (the
 * same decideDocumentTaxes the invoice creation runs) under the organization's rounding policy, and
 * the calculation itself; the kernel's refusal (a rate that does not fit its category, …) comes back
 * as reasons.
 */
export function billTotals(
  currency: string,
  rounding: RoundingPolicy,
  lines: readonly BillLine[],
  allowancesCharges: readonly BillAllowanceCharge[],
): { totals: ComputedTotals; document: TaxDocument } | { reasons: string[] } {
  const decision = decideDocumentTaxes({ currency, rounding, lines, allowances_charges: allowancesCharges, parties: null });
  if (!decision.ok) return { reasons: decision.errors.map((e) => `${e.field}: ${e.message}`) };
  const t = decision.document.totals;
  return {
    document: decision.document,
    totals: {
      line_extension: t.line_net_total.toFixed(),
      tax_exclusive: t.tax_exclusive_amount.toFixed(),
      tax: t.tax_total.toFixed(),
      tax_inclusive: t.tax_inclusive_amount.toFixed(),
    },
  };
}

/** What keepStatedVat decides: the rows with the VAT they state, and a note per category kept. */
export interface KeptVat {
  lines: BillLine[];
  allowances_charges: BillAllowanceCharge[];
  notes: string[];
}

/**
 * The sender's VAT per category (BT-117) where the bill's own calculation (`computed`, its rows under
 * the organization's policy) gives another figure by rounding alone: at most one minor unit per row
 * of the category, which is what rounding each row on its own (from a net rounded or not) can make of
 * it. EN 16931 admits such a figure (BR-CO-17), and it is what the supplier will be paid: the bill
 * carries it, each row stating its VAT (the computed one, the difference shared one unit at a time
 * over the lines and charges whose rounding moved their VAT furthest the other way), and a note names both figures. A category
 * further apart is left as computed: the totals then differ and the import is held for review.
 */
export function keepStatedVat(
  invoice: Pick<ReceivedInvoice, 'vat_breakdown'>,
  computed: TaxDocument,
  lines: readonly BillLine[],
  allowancesCharges: readonly BillAllowanceCharge[],
): KeptVat {
  const kept: KeptVat = { lines: [...lines], allowances_charges: [...allowancesCharges], notes: [] };
  const places = computed.minor_unit;
  const unit = dec(10).pow(-places);
  const sameGroup = (row: { tax_category: string; tax_rate: Dec }, b: TaxDocument['breakdown'][number]) =>
    row.tax_category === b.tax_category && row.tax_rate.eq(b.tax_rate);
  for (const b of computed.breakdown) {
    const statedRow = invoice.vat_breakdown.find((v) => v.category === b.tax_category && (num(v.rate ?? '0') ?? dec(-1)).eq(b.tax_rate));
    const stated = statedRow ? num(statedRow.tax_amount) : undefined;
    if (!stated || stated.eq(b.tax_amount)) continue;
    const lineRows = computed.lines.flatMap((l, i) => (sameGroup(l, b) ? [i] : []));
    const acRows = computed.allowances_charges.flatMap((a, k) => (sameGroup(a, b) ? [k] : []));
    const difference = stated.minus(b.tax_amount);
    const units = difference.div(unit);
    if (!units.isInteger() || units.abs().gt(lineRows.length + acRows.length)) continue;
    // The difference, one unit per row, to the lines and charges whose computed VAT its rounding took
    // furthest from their net × rate in the difference's direction (the earlier on a tie).
    const rate = b.tax_rate.div(100);
    const toward = difference.isNegative() ? -1 : 1;
    const receiving = [
      ...lineRows.map((i) => ({ kind: 'line' as const, at: i, net: computed.lines[i]!.net, tax: computed.lines[i]!.tax })),
      ...acRows
        .filter((k) => computed.allowances_charges[k]!.charge)
        .map((k) => ({
          kind: 'ac' as const,
          at: k,
          net: computed.allowances_charges[k]!.amount,
          tax: computed.allowances_charges[k]!.tax,
        })),
    ]
      .map((r) => ({ ...r, lost: r.net.times(rate).minus(r.tax).times(toward) }))
      .sort((x, y) => y.lost.comparedTo(x.lost))
      .slice(0, units.abs().toNumber());
    const step = difference.isNegative() ? unit.neg() : unit;
    const extra = (kind: 'line' | 'ac', at: number) => (receiving.some((r) => r.kind === kind && r.at === at) ? step : dec(0));
    for (const i of lineRows) {
      kept.lines[i] = { ...kept.lines[i]!, stated_tax: computed.lines[i]!.tax.plus(extra('line', i)).toFixed(places) };
    }
    for (const k of acRows) {
      kept.allowances_charges[k] = {
        ...kept.allowances_charges[k]!,
        stated_tax: computed.allowances_charges[k]!.tax.plus(extra('ac', k)).toFixed(places),
      };
    }
    kept.notes.push(
      `VAT ${b.tax_category} ${b.tax_rate.toFixed()} %: the bill carries ${stated.toFixed(places)} as the document states it (BT-117); its lines compute ${b.tax_amount.toFixed(places)} (difference ${difference.toFixed(places)}, the supplier's rounding)`,
    );
  }
  return kept;
}

/**
 * The reviewer's choices for `accept`, checked against the document: the supplier (the chosen
 * partner, else the one the import matched), and a product per line named by its BT-126. A line the
 * document does not have, or named twice, is an error naming its place in `line_products`.
 */
export function acceptChoices(
  invoice: ReceivedInvoice,
  asked: {
    partner?: number | undefined;
    stored: number | null;
    line_products?: ReadonlyArray<{ line: string; product_id: number }> | undefined;
  },
): { supplier: SupplierMatch; chosen: Map<string, string> } | { errors: Array<{ field: string; message: string }> } {
  const errors: Array<{ field: string; message: string }> = [];
  const ids = new Set(invoice.lines.map((l) => l.id));
  const chosen = new Map<string, string>();
  (asked.line_products ?? []).forEach((c, i) => {
    const field = `line_products.${i}.line`;
    if (!ids.has(c.line))
      errors.push({ field, message: `${field}: the document has no line ${c.line} (its lines: ${[...ids].join(', ')})` });
    else if (chosen.has(c.line)) errors.push({ field, message: `${field}: line ${c.line} is chosen twice` });
    else chosen.set(c.line, String(c.product_id));
  });
  const partner = asked.partner ?? asked.stored ?? undefined;
  if (partner === undefined)
    errors.push({ field: 'partner', message: 'partner: the supplier matches no partner; name the vendor the bill is for' });
  if (errors.length > 0) return { errors };
  return { supplier: { partner_id: partner!, by: 'chosen' }, chosen };
}
